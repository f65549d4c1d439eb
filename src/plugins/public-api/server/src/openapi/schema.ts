/**
 * JSON Schema building blocks of the document: null admitted, closed objects. Pure.
 */
import type { Ref, Schema } from './types';

export const nullable = (schema: Schema | Ref): Schema => {
  if ('$ref' in schema || schema.type === undefined) return { oneOf: [schema as Schema, { type: 'null' }] };
  const type = schema.type;
  const types = Array.isArray(type) ? type : [type as string];
  const result: Schema = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) result.enum = [...schema.enum, null];
  return result;
};

/** A closed object: every listed property, only those. */
export const object = (
  properties: Record<string, Schema | Ref>,
  required: string[] = Object.keys(properties),
  extra: Schema = {},
): Schema => ({
  type: 'object',
  ...extra,
  ...(required.length ? { required } : {}),
  properties: properties as Schema,
  additionalProperties: false,
});
