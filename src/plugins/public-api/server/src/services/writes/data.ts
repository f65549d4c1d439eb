/**
 * A write's attribute plan -> the data Strapi's document service is given, every reference (relations,
 * media, richtext images) resolved; 422 with every problem found otherwise.
 */
import type { Core } from '@strapi/strapi';
import { apiErrors, type ErrorObject } from '../../http/errors';
import { MAX_REPORTED_PROBLEMS, type AttributePlan } from '../../write/attributes';
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
  // One after the other: inside a transaction there is one connection.
  const relations = await resolveRelations(target, plan.fields, problems, rowId);
  const files = await loadFiles(strapi, plan.fields);
  const data: Record<string, unknown> = { ...relations };
  for (const entry of plan.fields) {
    switch (entry.planned.kind) {
      case 'value':
        data[entry.field.key] = entry.planned.value;
        break;
      case 'media':
        data[entry.field.key] = resolveMedia(entry, entry.planned.refs, files, problems);
        break;
      case 'richtext':
        data[entry.field.key] = resolveRichtext(entry, entry.planned.doc, files, problems);
        break;
      default:
    }
  }
  if (problems.length) throw unprocessable(problems);
  return data;
};
