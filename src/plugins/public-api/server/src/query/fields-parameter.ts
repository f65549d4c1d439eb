/**
 * `fields[type]=a,b` -> sparse fieldsets (JSON:API 1.1 "Sparse Fieldsets", contract section 14). Pure.
 *
 * A fieldset names the fields that records of one type show. The type must be one the read returns: the
 * resource's own, or one its `include` expands. A field the key cannot read gets the answer an unknown
 * one gets, word for word, so a fieldset never tells that a field exists.
 */
import { echo, parameterError } from './problems';
import type { IncludeSpec, RecordTypeTree } from './types';

/** At most this many names in one fieldset. */
export const MAX_FIELDSET_NAMES = 100;

/** The record types a read returns, each with the fields its records can show. */
export type ReturnedTypes = ReadonlyMap<string, ReadonlySet<string>>;

/** A parsed `fields[type]` parameter. */
export type Fieldset = { type: string; names: ReadonlySet<string> };

/** Whether a parameter name belongs to the fieldset syntax (and so is judged here, not as unknown). */
export const isFieldsetParameter = (name: string): boolean => name === 'fields' || name.startsWith('fields[');

const FIELDSET_NAME = /^fields\[([^[\]]+)\]$/;

/**
 * The types the records of a read have, from the tree of the resource and the include as parsed. Two
 * levels of one type (events, and the events a festival expands) are one type; two resources of one
 * type (a native and a CMS collection) may show any field either can.
 */
export const returnedTypes = (tree: RecordTypeTree, include: readonly IncludeSpec[]): ReturnedTypes => {
  const types = new Map<string, Set<string>>();
  const visit = (node: RecordTypeTree, specs: readonly IncludeSpec[]) => {
    const fields = types.get(node.type) ?? new Set<string>();
    for (const field of node.fields) fields.add(field);
    types.set(node.type, fields);
    for (const spec of specs) {
      const next = node.include.get(spec.field);
      if (next) visit(next, spec.include);
    }
  };
  visit(tree, include);
  return types;
};

/**
 * One `fields[...]` parameter -> its type and names, or a 400 naming the parameter. `returned` is null
 * when the read's include was refused: the types are then unknown, and only the syntax is judged.
 */
export const parseFieldset = (parameter: string, text: string, returned: ReturnedTypes | null): Fieldset => {
  const fail = (detail: string, reason: Parameters<typeof parameterError>[2]) => parameterError(parameter, detail, reason);

  const match = FIELDSET_NAME.exec(parameter);
  if (!match) {
    throw fail(
      `${echo(parameter)} is not a fieldset; write fields[type]=field,field (or nothing after = for no fields).`,
      'fields_invalid',
    );
  }
  const type = match[1]!;
  // `fields[events]=` asks for records without attributes.
  const names = text === '' ? [] : text.split(',');
  if (names.length > MAX_FIELDSET_NAMES) throw fail(`A fieldset names at most ${MAX_FIELDSET_NAMES} fields.`, 'fields_limit');
  if (names.some((name) => name === '')) {
    throw fail(`The value of ${echo(parameter)} must be field names separated by commas, with no empty name.`, 'fields_invalid');
  }
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw fail(`The field ${echo(name)} appears more than once.`, 'fields_repeated');
    seen.add(name);
  }
  if (returned === null) return { type, names: seen };

  const readable = returned.get(type);
  if (!readable) {
    const types = [...returned.keys()].join(', ');
    throw fail(`${echo(type)} is not a type of the records this request returns (${types}).`, 'fields_type_invalid');
  }
  for (const name of names) {
    if (!readable.has(name)) throw fail(`${echo(name)} is not a readable field of ${type} records.`, 'fields_field_invalid');
  }
  return { type, names: seen };
};
