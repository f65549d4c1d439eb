/**
 * Per-resource schemas of what reads send: `<Resource>Attributes` (the readable fields, typed as the
 * serializer writes them), `<Resource>Record`, `<Resource>Reference` and the collection and record
 * documents. Field by field this mirrors serialize/record.ts and serialize/values.ts.
 */
import { allows } from '../grants/projection';
import type { Field, Resource } from '../registry/types';
import type { DocumentContext } from './context';
import { asset, fieldMeta, jsonApi, nullable, object, recordMeta, richtextDoc } from './shared';
import type { Ref, Schema } from './types';

/** The request URL, as a valid URI (the middleware percent-encodes the query). */
export const SELF_LINK: Schema = { type: 'string', format: 'uri', description: 'The request URL.' };

const INTEGER_ATTRIBUTES = new Set(['integer', 'biginteger']);

const described = (schema: Schema | Ref, field: Field): Schema => ({ ...schema, description: field.label });

/** Required scalars are never null in a published record (Strapi checks them on publish). */
const maybeNull = (schema: Schema | Ref, field: Field): Schema | Ref => (field.required ? schema : nullable(schema));

/** `{ id, slug, collection }` pointing at `target`. */
export const referenceSchema = (context: DocumentContext, target: Resource): Ref =>
  context.components.schema(`${context.nameOf(target)}Reference`, () =>
    object(
      {
        id: { type: 'string', description: 'The id of the related record.' },
        slug: { type: ['string', 'null'], description: 'The slug of the related record, or null.' },
        collection: { type: 'string', const: target.slug, description: 'The slug of the related resource.' },
      },
      undefined,
      { description: `A reference to a record of ${target.id}.` }
    )
  );

/** A relation value: the reference, or the related record when `include` expanded it. */
const relationItem = (context: DocumentContext, target: Resource): Schema | Ref =>
  allows(context.grants, target.id, 'read')
    ? { oneOf: [referenceSchema(context, target), recordSchema(context, target)] }
    : referenceSchema(context, target);

export const readFieldSchema = (context: DocumentContext, resource: Resource, field: Field): Schema => {
  const { components } = context;
  switch (field.type) {
    case 'string':
    case 'text':
    case 'markdown':
      return described(maybeNull({ type: 'string' }, field), field);
    case 'number':
      return described(maybeNull({ type: INTEGER_ATTRIBUTES.has(field.attribute.type) ? 'integer' : 'number' }, field), field);
    case 'boolean':
      return described(maybeNull({ type: 'boolean' }, field), field);
    case 'date':
      return described(maybeNull({ type: 'string', format: 'date' }, field), field);
    case 'datetime':
      return described(maybeNull({ type: 'string', format: 'date-time' }, field), field);
    case 'select':
      return described(maybeNull({ type: 'string', enum: (field.options ?? []).map((option) => option.value) }, field), field);
    case 'tags':
      return described({ type: 'array', items: { type: 'string' } }, field);
    case 'richtext':
      return described(maybeNull(richtextDoc(components), field), field);
    case 'image':
    case 'file':
      // A file may be gone or not yet linked whatever the schema says.
      return described(nullable(asset(components)), field);
    case 'images':
    case 'files':
      return described({ type: 'array', items: asset(components) }, field);
    case 'relation':
    case 'relations': {
      const target = context.projectionOf(resource).targets.get(field.key)!;
      const item = relationItem(context, target);
      // A related record may be unpublished or out of scope: a to-one relation is null then.
      return described(field.type === 'relation' ? nullable(item) : { type: 'array', items: item }, field);
    }
  }
};

export const attributesSchema = (context: DocumentContext, resource: Resource): Ref =>
  context.components.schema(`${context.nameOf(resource)}Attributes`, () => {
    const projection = context.projectionOf(resource);
    return object(
      Object.fromEntries(projection.readable.map((field) => [field.key, readFieldSchema(context, resource, field)])),
      undefined,
      { description: `The fields of ${resource.id} this key may read.` }
    );
  });

export const recordSchema = (context: DocumentContext, resource: Resource): Ref =>
  context.components.schema(`${context.nameOf(resource)}Record`, () =>
    object(
      {
        type: { type: 'string', const: resource.slug },
        id: { type: 'string', description: 'The stable record id.' },
        attributes: attributesSchema(context, resource),
        meta: recordMeta(context.components),
      },
      undefined,
      { description: `A record of ${resource.id}.` }
    )
  );

const resourceMeta = (resource: Resource): Schema =>
  object({
    name: { type: 'string', const: resource.name },
    slug: { type: 'string', const: resource.slug },
    mode: { type: 'string', const: resource.mode },
  });

const fieldsMeta = (context: DocumentContext): Schema => ({
  type: 'array',
  description: 'The fields this key may read or write.',
  items: fieldMeta(context.components),
});

export const collectionDocumentSchema = (context: DocumentContext, resource: Resource): Ref =>
  context.components.schema(`${context.nameOf(resource)}CollectionDocument`, () =>
    object(
      {
        jsonapi: jsonApi(context.components),
        links: object(
          {
            self: SELF_LINK,
            next: { type: 'string', format: 'uri', description: 'The next page, ready to use; absent on the last page.' },
          },
          ['self']
        ),
        meta: object({
          resource: resourceMeta(resource),
          fields: fieldsMeta(context),
          page: object({ nextCursor: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last page.' } }),
        }),
        data: { type: 'array', items: recordSchema(context, resource) },
      },
      undefined,
      { description: `A page of ${resource.id}.` }
    )
  );

export const recordDocumentSchema = (context: DocumentContext, resource: Resource): Ref =>
  context.components.schema(`${context.nameOf(resource)}RecordDocument`, () =>
    object(
      {
        jsonapi: jsonApi(context.components),
        links: object({ self: SELF_LINK }),
        meta: object({ resource: resourceMeta(resource), fields: fieldsMeta(context) }),
        data: recordSchema(context, resource),
      },
      undefined,
      { description: `One record of ${resource.id}.` }
    )
  );
