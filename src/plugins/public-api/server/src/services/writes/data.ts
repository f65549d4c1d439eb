/**
 * A write's attribute plan -> the data Strapi's document service is given, every reference (relations,
 * media, richtext images) resolved, inside component values too; 422 with every problem found otherwise.
 */
import type { Core } from '@strapi/strapi';
import type { PlannedMember } from '../../fields/codec';
import { apiErrors, type ErrorObject } from '../../http/errors';
import { MAX_REPORTED_PROBLEMS, type AttributePlan } from '../../write/attributes';
import { componentData, nestedMembers } from '../../write/component-data';
import { resolveNestedRelations } from './components';
import { loadFiles, resolveMedia, resolveRichtext } from './files';
import { resolveRelations } from './references';
import type { WriteTarget } from './target';

export const unprocessable = (problems: ErrorObject[]) => apiErrors(422, problems.slice(0, MAX_REPORTED_PROBLEMS));

/** The plan -> Strapi data, every reference resolved; 422 with every problem otherwise. */
export const dataOf = async (
  strapi: Core.Strapi,
  target: WriteTarget,
  plan: AttributePlan,
  rowId: number | null,
): Promise<Record<string, unknown>> => {
  const problems: ErrorObject[] = [];
  const nested = nestedMembers(plan.fields);
  // One after the other: inside a transaction there is one connection.
  const relations = await resolveRelations(target, plan.fields, problems, rowId);
  const nestedRelations = await resolveNestedRelations(target, nested, problems);
  const files = await loadFiles(strapi, [...plan.fields, ...nested.map((entry) => entry.member)]);
  // A value as Strapi takes it; the top level's relations are resolved above (`relations`), those inside components here.
  const valueOf = (entry: PlannedMember): unknown => {
    switch (entry.planned.kind) {
      case 'value':
        return entry.planned.value;
      case 'media':
        return resolveMedia(entry, entry.planned.refs, files, problems);
      case 'richtext':
        return resolveRichtext(entry, entry.planned.doc, files, problems);
      case 'relation':
        return nestedRelations.get(entry);
      case 'components':
        return componentData(entry.field, entry.planned.items, valueOf);
      default:
        return undefined;
    }
  };
  const data: Record<string, unknown> = { ...relations };
  for (const entry of plan.fields) {
    if (entry.planned.kind === 'relation' || entry.planned.kind === 'relationChanges') continue;
    data[entry.field.key] = valueOf(entry);
  }
  if (problems.length) throw unprocessable(problems);
  return data;
};
