/**
 * The `fields[type]` parameters of reads (contract section 14): one per record type a read can return,
 * its own and every type `include` reaches within its depth, each an array of that type's readable
 * fields. Pure.
 */
import { MAX_FIELDSET_NAMES } from '../query/fields-parameter';
import { MAX_INCLUDE_DEPTH } from '../query/include';
import type { QueryVocabulary, RecordTypeTree } from '../query/types';
import type { ParameterObject, Schema } from './types';

/** Each type once with the readable fields of its records, in the order a breadth-first walk meets them. */
const reachableTypes = (root: RecordTypeTree): Map<string, Set<string>> => {
  const types = new Map<string, Set<string>>();
  const seen = new Set<RecordTypeTree>([root]);
  let level: RecordTypeTree[] = [root];
  for (let depth = 0; depth <= MAX_INCLUDE_DEPTH && level.length; depth += 1) {
    const next: RecordTypeTree[] = [];
    for (const node of level) {
      const fields = types.get(node.type) ?? new Set<string>();
      for (const field of node.fields) fields.add(field);
      types.set(node.type, fields);
      for (const target of node.include.values()) {
        if (seen.has(target)) continue;
        seen.add(target);
        next.push(target);
      }
    }
    level = next;
  }
  return types;
};

const namesSchema = (fields: ReadonlySet<string>): Schema =>
  fields.size === 0
    ? { type: 'array', maxItems: 0, items: { type: 'string' } }
    : {
        type: 'array',
        uniqueItems: true,
        maxItems: Math.min(fields.size, MAX_FIELDSET_NAMES),
        items: { type: 'string', enum: [...fields] },
      };

export const fieldsetParameters = (vocabulary: QueryVocabulary): ParameterObject[] =>
  [...reachableTypes(vocabulary.records)].map(([type, fields]) => ({
    name: `fields[${type}]`,
    in: 'query',
    description: `${
      type === vocabulary.records.type
        ? `The fields ${type} records show, comma-separated (included ${type} records too)`
        : `The fields the ${type} records \`include\` expands show, comma-separated`
    }; empty for none, absent for every readable field. A relation \`include\` expands is shown whether listed or not; \`meta\` always is. \`meta.fields\` lists the fields shown.`,
    style: 'form',
    explode: false,
    schema: namesSchema(fields),
  }));
