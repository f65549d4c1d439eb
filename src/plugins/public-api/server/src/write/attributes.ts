/**
 * The `attributes` of a write, judged against the key's projection (contract section 7). Pure.
 *
 * Every attribute gets exactly one verdict: not writable with this key (unknown fields get the same
 * answer, so nothing about ungranted fields leaks), a value of the wrong shape, or a planned value.
 * All problems are reported at once, one error object per field, and any problem rejects the write.
 *
 * Shapes are checked here, before Strapi sees anything, so that a wrong value is a 422 on its field
 * rather than a coercion or a database error. The content type's own rules (required, min/max, regex,
 * enumerations, uniqueness) and the domain rules are Strapi's to apply; they come back as 422s too
 * (`write/violations.ts`). What needs the database (relation targets, assets) is planned here and
 * resolved by the writes service.
 */
import type { Projection } from '../grants/projection';
import { errorObject, type ErrorObject } from '../http/errors';
import { echo } from '../query/problems';
import type { Field } from '../registry/types';
import { DATE_RANGE, parseDate, parseDateTime } from '../values/calendar';
import { describeColumn, fitsColumn, numberColumnOf } from '../values/numbers';
import { attributePointer } from './pointer';
import { unstorableProblems } from './storable';

export const MAX_REPORTED_PROBLEMS = 20;

/** Strapi keeps string, email, uid and enumeration values in VARCHAR(255) columns. */
export const MAX_STRING_LENGTH = 255;
/** DECIMAL(10, 2) columns: eight digits before the point, two after. */
export const DECIMAL_LIMIT = 1e8;
export const DECIMAL_PLACES = 2;

/** How a reference names its target: by `id`, by `slug`, or a bare string tried as slug, then as id. */
export type RelationRef = {
  by: 'id' | 'slug' | 'either';
  value: string;
  /** A reference that gives both id and slug must name one record with both. */
  alsoSlug?: string;
  pointer: string;
};

export type AssetRef = { id: string; pointer: string };

export type PlannedValue =
  | { kind: 'value'; value: unknown }
  | { kind: 'richtext'; doc: unknown }
  | { kind: 'relation'; refs: RelationRef[] }
  | { kind: 'media'; refs: AssetRef[] };

export type PlannedField = { field: Field; pointer: string; planned: PlannedValue };

export type AttributePlan = { fields: PlannedField[]; problems: ErrorObject[] };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const describe = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
};

const invalid = (pointer: string, detail: string): ErrorObject =>
  errorObject(422, detail, { source: { pointer }, reason: 'value_invalid' });

type Verdict = { ok: true; planned: PlannedValue } | { ok: false; problems: ErrorObject[] };

const ok = (planned: PlannedValue): Verdict => ({ ok: true, planned });
const fail = (...problems: ErrorObject[]): Verdict => ({ ok: false, problems });
const value = (v: unknown): Verdict => ok({ kind: 'value', value: v });

// ---------------------------------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------------------------------

const TIME = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,3})?)?$/;

/** `YYYY-MM-DD` that names a real day in the range both databases store (values/calendar.ts). */
export const isDate = (text: string): boolean => parseDate(text) !== null;

/** An ISO 8601 date-time with a zone (`Z` or an offset), naming a real instant in the range; normalized to UTC. */
export const normalizeDatetime = (text: string): string | null => {
  const millis = parseDateTime(text);
  return millis === null ? null : new Date(millis).toISOString();
};

const hasAtMostPlaces = (n: number, places: number): boolean => Number(n.toFixed(places)) === n;

const stringValue = (field: Field, pointer: string, raw: unknown): Verdict => {
  if (raw === null) return value(null);
  if (typeof raw !== 'string') return fail(invalid(pointer, `'${field.key}' takes a string or null, not ${describe(raw)}.`));
  const strapiType = field.attribute.type;
  if (['string', 'email', 'uid', 'enumeration'].includes(strapiType) && Array.from(raw).length > MAX_STRING_LENGTH) {
    return fail(invalid(pointer, `'${field.key}' takes at most ${MAX_STRING_LENGTH} characters.`));
  }
  if (strapiType === 'time' && !TIME.test(raw)) {
    return fail(invalid(pointer, `'${field.key}' takes a time of day as HH:mm, HH:mm:ss or HH:mm:ss.SSS.`));
  }
  return value(raw);
};

const numberValue = (field: Field, pointer: string, raw: unknown): Verdict => {
  if (raw === null) return value(null);
  if (typeof raw !== 'number' || !Number.isFinite(raw)) {
    return fail(invalid(pointer, `'${field.key}' takes a number or null, not ${describe(raw)}.`));
  }
  const column = numberColumnOf(field.attribute.type);
  if (!fitsColumn(column, raw)) return fail(invalid(pointer, `'${field.key}' takes ${describeColumn(column)}.`));
  switch (field.attribute.type) {
    case 'decimal':
      if (Math.abs(raw) >= DECIMAL_LIMIT || !hasAtMostPlaces(raw, DECIMAL_PLACES)) {
        return fail(invalid(pointer, `'${field.key}' takes a number below ${DECIMAL_LIMIT} in absolute value, with at most ${DECIMAL_PLACES} decimal places.`));
      }
      break;
    default:
  }
  return value(raw);
};

const scalar = (field: Field, pointer: string, raw: unknown): Verdict => {
  switch (field.type) {
    case 'string':
    case 'text':
    case 'markdown':
      return stringValue(field, pointer, raw);
    case 'number':
      return numberValue(field, pointer, raw);
    case 'boolean':
      return raw === null || typeof raw === 'boolean' ? value(raw) : fail(invalid(pointer, `'${field.key}' takes true, false or null, not ${describe(raw)}.`));
    case 'date':
      return raw === null || (typeof raw === 'string' && isDate(raw))
        ? value(raw)
        : fail(invalid(pointer, `'${field.key}' takes a date as YYYY-MM-DD ${DATE_RANGE}, or null.`));
    case 'datetime': {
      if (raw === null) return value(null);
      const normalized = typeof raw === 'string' ? normalizeDatetime(raw) : null;
      return normalized !== null
        ? value(normalized)
        : fail(invalid(pointer, `'${field.key}' takes an ISO 8601 date-time with a zone, like 2027-06-01T19:30:00Z, ${DATE_RANGE} in UTC, or null.`));
    }
    case 'select': {
      const options = (field.options ?? []).map((option) => option.value);
      return raw === null || (typeof raw === 'string' && options.includes(raw))
        ? value(raw)
        : fail(invalid(pointer, `'${field.key}' takes one of ${options.map((option) => `'${option}'`).join(', ')}, or null.`));
    }
    default:
      return fail(invalid(pointer, `'${field.key}' cannot be written.`));
  }
};

// ---------------------------------------------------------------------------------------------------------
// Tags, richtext, media, relations
// ---------------------------------------------------------------------------------------------------------

const tags = (field: Field, pointer: string, raw: unknown): Verdict => {
  if (raw === null) return value(null);
  if (!Array.isArray(raw)) return fail(invalid(pointer, `'${field.key}' takes an array of strings, not ${describe(raw)}.`));
  const problems = raw.flatMap((tag, index) =>
    typeof tag === 'string' && tag.trim() !== ''
      ? []
      : [invalid(`${pointer}/${index}`, `A tag is a non-empty string, not ${typeof tag === 'string' ? 'a blank one' : describe(tag)}.`)]
  );
  return problems.length ? fail(...problems) : value([...raw]);
};

const assetRef = (field: Field, pointer: string, raw: unknown): AssetRef | ErrorObject => {
  if (typeof raw === 'string' && raw !== '') return { id: raw, pointer };
  if (isObject(raw) && typeof raw.id === 'string' && raw.id !== '') return { id: raw.id, pointer };
  return invalid(pointer, `'${field.key}' takes assets by id: a string, or an object with an \`id\` (as reads show them).`);
};

const media = (field: Field, pointer: string, raw: unknown): Verdict => {
  const many = field.type === 'images' || field.type === 'files';
  if (raw === null) return ok({ kind: 'media', refs: [] });
  if (!many) {
    const ref = assetRef(field, pointer, raw);
    return 'status' in ref ? fail(ref) : ok({ kind: 'media', refs: [ref] });
  }
  if (!Array.isArray(raw)) return fail(invalid(pointer, `'${field.key}' takes an array of assets, not ${describe(raw)}.`));
  const refs: AssetRef[] = [];
  const problems: ErrorObject[] = [];
  raw.forEach((item, index) => {
    const ref = assetRef(field, `${pointer}/${index}`, item);
    if ('status' in ref) problems.push(ref);
    else refs.push(ref);
  });
  return problems.length ? fail(...problems) : ok({ kind: 'media', refs });
};

const relationRef = (field: Field, target: string, pointer: string, raw: unknown): RelationRef | ErrorObject => {
  const shape = `'${field.key}' takes references to ${target} records: an id or slug as a string, or an object with \`id\` or \`slug\`.`;
  if (typeof raw === 'string') return raw === '' ? invalid(pointer, shape) : { by: 'either', value: raw, pointer };
  if (!isObject(raw)) return invalid(pointer, shape);
  for (const member of ['collection', 'type'] as const) {
    if (raw[member] !== undefined && raw[member] !== target) {
      return invalid(`${pointer}/${member}`, `'${field.key}' refers to ${target} records, not to ${typeof raw[member] === 'string' ? echo(raw[member] as string) : describe(raw[member])}.`);
    }
  }
  const id = raw.id;
  const slug = raw.slug;
  const idOk = typeof id === 'string' && id !== '';
  const slugOk = typeof slug === 'string' && slug !== '';
  if (id !== undefined && !idOk) return invalid(`${pointer}/id`, 'An `id` is a non-empty string.');
  // Reads show `slug: null` for records without one; that names nothing, so the id decides.
  if (slug !== undefined && slug !== null && !slugOk) return invalid(`${pointer}/slug`, 'A `slug` is a non-empty string.');
  if (idOk) return { by: 'id', value: id as string, ...(slugOk ? { alsoSlug: slug as string } : {}), pointer };
  if (slugOk) return { by: 'slug', value: slug as string, pointer };
  return invalid(pointer, shape);
};

const relation = (field: Field, target: string, pointer: string, raw: unknown): Verdict => {
  if (raw === null) return ok({ kind: 'relation', refs: [] });
  if (field.type === 'relation') {
    const ref = relationRef(field, target, pointer, raw);
    return 'status' in ref ? fail(ref) : ok({ kind: 'relation', refs: [ref] });
  }
  if (!Array.isArray(raw)) return fail(invalid(pointer, `'${field.key}' takes an array of references, not ${describe(raw)}.`));
  const refs: RelationRef[] = [];
  const problems: ErrorObject[] = [];
  raw.forEach((item, index) => {
    const ref = relationRef(field, target, `${pointer}/${index}`, item);
    if ('status' in ref) problems.push(ref);
    else refs.push(ref);
  });
  return problems.length ? fail(...problems) : ok({ kind: 'relation', refs });
};

const richtext = (field: Field, pointer: string, raw: unknown): Verdict =>
  raw === null || isObject(raw)
    ? ok({ kind: 'richtext', doc: raw })
    : fail(invalid(pointer, `'${field.key}' takes a richtext document ({ "type": "doc", "content": [...] }) or null, not ${describe(raw)}.`));

// ---------------------------------------------------------------------------------------------------------
// The plan
// ---------------------------------------------------------------------------------------------------------

export const notWritable = (name: string): ErrorObject =>
  errorObject(422, `Field ${echo(name)} is not writable with this key.`, {
    source: { pointer: attributePointer(name) },
    reason: 'field_not_writable',
  });

const judge = (projection: Projection, field: Field, pointer: string, raw: unknown): Verdict => {
  const unstorable = unstorableProblems(raw, [field.key], MAX_REPORTED_PROBLEMS);
  if (unstorable.length) return fail(...unstorable);
  switch (field.type) {
    case 'tags':
      return tags(field, pointer, raw);
    case 'richtext':
      return richtext(field, pointer, raw);
    case 'image':
    case 'file':
    case 'images':
    case 'files':
      return media(field, pointer, raw);
    case 'relation':
    case 'relations':
      return relation(field, projection.targets.get(field.key)?.slug ?? '', pointer, raw);
    default:
      return scalar(field, pointer, raw);
  }
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
