/**
 * The `attributes` of a write, judged against the key's projection (contract section 7). Pure.
 *
 * Every attribute gets exactly one verdict: not writable with this key (unknown fields get the same
 * answer, so nothing about ungranted fields leaks), a value of the wrong shape, or a planned value.
 * All problems are reported at once, one error object per field, and any problem rejects the write.
 *
 * Shapes are checked here, before Strapi sees anything, so that a wrong value is a 422 on its field
 * rather than a coercion or a database error; each field type judges its own values (fields/types/).
 * The content type's own rules (required, min/max, regex, enumerations, uniqueness) and the domain
 * rules are Strapi's to apply; they come back as 422s too (`write/violations.ts`). What needs the database (relation targets, assets) is planned here and
 * resolved by the writes service.
 */
import type { PlannedValue, Violation, WriteContext } from '../fields/codec';
import { codecOf } from '../fields/table';
import type { Projection } from '../grants/projection';
import { errorObject, type ErrorObject } from '../http/errors';
import { echo } from '../query/problems';
import type { Field } from '../registry/types';
import { attributePointer } from './pointer';
import { unstorableProblems } from './storable-values';

/** What the writes service resolves: the plan's values, as the field types judge them (fields/codec.ts). */
export type { AssetRef, PlannedValue, RelationRef } from '../fields/codec';

export const MAX_REPORTED_PROBLEMS = 20;

export type PlannedField = { field: Field; pointer: string; planned: PlannedValue };

export type AttributePlan = { fields: PlannedField[]; problems: ErrorObject[] };

const invalid = ({ pointer, detail }: Violation): ErrorObject => errorObject(422, detail, { source: { pointer }, reason: 'value_invalid' });

export const notWritable = (name: string): ErrorObject =>
  errorObject(422, `Field ${echo(name)} is not writable with this key.`, {
    source: { pointer: attributePointer(name) },
    reason: 'field_not_writable',
  });

type Verdict = { ok: true; planned: PlannedValue } | { ok: false; problems: ErrorObject[] };

/**
 * How a field inside a component value is judged: by its own type, a relation's target as this key sees
 * it from the record's resource; a field the key does not see of the component (a relation to a resource
 * it is not given) is no field at all.
 */
const componentMember =
  (projection: Projection): NonNullable<WriteContext['member']> =>
  (raw, field, component, context) => {
    const seen = projection.components.get(component.uid);
    if (!seen?.readable.includes(field)) return null;
    return codecOf(field).parseWrite(raw, field, { ...context, target: seen.targets.get(field.key)?.slug ?? '' });
  };

/** What a field of the resource is judged with: where it sits, its relation's target, and how fields inside its components are judged. */
export const writeContextOf = (projection: Projection, field: Field, pointer: string): WriteContext => ({
  pointer,
  target: projection.targets.get(field.key)?.slug ?? '',
  member: componentMember(projection),
});

const judge = (projection: Projection, field: Field, pointer: string, raw: unknown): Verdict => {
  const unstorable = unstorableProblems(raw, [field.key], MAX_REPORTED_PROBLEMS);
  if (unstorable.length) return { ok: false, problems: unstorable };
  const verdict = codecOf(field).parseWrite(raw, field, writeContextOf(projection, field, pointer));
  return verdict.ok ? verdict : { ok: false, problems: verdict.violations.map(invalid) };
};

/**
 * Judges every attribute of a write. `undefined` cannot occur in parsed JSON, so every member present
 * is a value the caller wants written (null included).
 */
export const planAttributes = (projection: Projection, attributes: Record<string, unknown>): AttributePlan => {
  const writable = new Map(projection.writable.map((field) => [field.key, field]));
  const fields: PlannedField[] = [];
  const problems: ErrorObject[] = [];
  for (const [name, raw] of Object.entries(attributes)) {
    const field = writable.get(name);
    if (!field) {
      problems.push(notWritable(name));
      continue;
    }
    const pointer = attributePointer(name);
    const verdict = judge(projection, field, pointer, raw);
    if (verdict.ok) fields.push({ field, pointer, planned: verdict.planned });
    else problems.push(...verdict.problems);
  }
  return { fields, problems: problems.slice(0, MAX_REPORTED_PROBLEMS) };
};
