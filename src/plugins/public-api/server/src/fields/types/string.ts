/**
 * `string`: short text (Strapi's string, email, uid and time). Its write rules are shared by the other
 * text types (text.ts, markdown.ts). Pure.
 */
import type { Schema } from '../../openapi/types';
import type { Field } from '../../registry/types';
import { toText } from '../../values/database';
import type { ColumnCodec, SchemaKit, ValueSchema, WriteContext, WriteSchemaContext, WriteVerdict } from '../codec';
import { acceptValue, describe, refuse, violation } from '../judge';

const STRING_ATTRIBUTES = new Set(['string', 'email', 'uid', 'time']);

/** Strapi keeps string, email and uid values in VARCHAR(255) columns. */
export const MAX_STRING_LENGTH = 255;
const VARCHAR_ATTRIBUTES = new Set(['string', 'email', 'uid']);

/** Strapi's `time`: HH:mm[:ss[.SSS]]. */
const TIME = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,3})?)?$/;
const TIME_PATTERN = '^([01]\\d|2[0-3]):([0-5]\\d)(?::([0-5]\\d)(?:\\.\\d{1,3})?)?$';
/** Strapi's default uid alphabet, for slugs that declare no regex of their own. */
const UID_PATTERN = '^[A-Za-z0-9-_.~]*$';

export const parseTextWrite = (raw: unknown, field: Field, { pointer }: WriteContext): WriteVerdict => {
  if (raw === null) return acceptValue(null);
  if (typeof raw !== 'string') return refuse(violation(pointer, `'${field.key}' takes a string or null, not ${describe(raw)}.`));
  const strapiType = field.attribute.type;
  if (VARCHAR_ATTRIBUTES.has(strapiType) && Array.from(raw).length > MAX_STRING_LENGTH) {
    return refuse(violation(pointer, `'${field.key}' takes at most ${MAX_STRING_LENGTH} characters.`));
  }
  if (strapiType === 'time' && !TIME.test(raw)) {
    return refuse(violation(pointer, `'${field.key}' takes a time of day as HH:mm, HH:mm:ss or HH:mm:ss.SSS.`));
  }
  return acceptValue(raw);
};

/** The content type's own rules as JSON Schema: length (within the column), pattern, format. */
export const textWriteSchema = (field: Field, _kit: SchemaKit, { isSlug }: WriteSchemaContext): ValueSchema => {
  const attribute = field.attribute;
  const schema: Schema = { type: 'string' };
  const column = VARCHAR_ATTRIBUTES.has(attribute.type) ? MAX_STRING_LENGTH : undefined;
  const maxLength =
    attribute.maxLength !== undefined && column !== undefined ? Math.min(attribute.maxLength, column) : (attribute.maxLength ?? column);
  if (attribute.minLength !== undefined) schema.minLength = attribute.minLength;
  if (maxLength !== undefined) schema.maxLength = maxLength;
  if (attribute.regex) schema.pattern = attribute.regex;
  else if (attribute.type === 'uid') schema.pattern = UID_PATTERN;
  else if (attribute.type === 'time') schema.pattern = TIME_PATTERN;
  if (attribute.type === 'email') schema.format = 'email';
  // A missing slug is generated from its target field: null and absence are the same request.
  return { schema, nullable: isSlug ? 'always' : 'unless-required' };
};

export const textReadSchema = (): ValueSchema => ({ schema: { type: 'string' }, nullable: 'unless-required' });

export const string: ColumnCodec = {
  type: 'string',
  storage: 'column',
  scalar: true,
  accepts: (attribute) => STRING_ATTRIBUTES.has(attribute.type),
  serialize: toText,
  readSchema: textReadSchema,
  parseWrite: parseTextWrite,
  writeSchema: textWriteSchema,
  filter: () => ({ type: 'string' }),
  sortKind: 'text',
  sortable: () => true,
};
