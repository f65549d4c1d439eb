/**
 * Per-resource schemas of what reads send: `<Resource>Attributes` (the readable fields, typed as the
 * serializer writes them), `<Resource>Record`, `<Resource>Reference` and the collection and record
 * documents. Each field's value schema is its type's (fields/table.ts), as its values are.
 */
import type { SchemaKit, ValueSchema } from '../fields/codec';
import { codecOf } from '../fields/table';
import { allows, type Projection } from '../grants/projection';
import type { Field, Resource } from '../registry/types';
import { asset } from './asset';
import { withComponentInputs, type BaseKit } from './component-inputs';
import { componentSchema, dynamicZoneItemSchema } from './component-schemas';
import type { DocumentContext } from './context';
import { jsonApi } from './envelope';
import { assetInput, relationChanges, relationInput } from './inputs';
import { fieldMeta, recordMeta } from './meta';
import { richtextDoc, richtextDocInput } from './richtext';
import { nullable, object } from './schema';
import type { Ref, Schema } from './types';

/** The request URL, as a valid URI (the middleware percent-encodes the query). */
export const SELF_LINK: Schema = { type: 'string', format: 'uri', description: 'The request URL.' };

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
      { description: `A reference to a record of ${target.id}.` },
    ),
  );

/** A relation value: the reference, or the related record when `include` expanded it. */
const relationItem = (context: DocumentContext, target: Resource): Schema | Ref =>
  allows(context.grants, target.id, 'read')
    ? { oneOf: [referenceSchema(context, target), recordSchema(context, target)] }
    : referenceSchema(context, target);

/**
 * The named schemas field types refer to (fields/codec.ts), written into the document on first use.
 * `projection` is whose fields they are: the resource's, or a component's as its owner sees it.
 */
export const schemaKit = (
  context: DocumentContext,
  resource: Resource,
  projection: () => Projection = () => context.projectionOf(resource),
): SchemaKit => withComponentInputs(context, projection, schemaBase(context, projection), 'Input', fieldSchema);

/** The kit but its component inputs (./component-inputs.ts adds them, of the single writes' or atomic operations' variant). */
export const schemaBase = (context: DocumentContext, projection: () => Projection): BaseKit => ({
  richtextDoc: () => richtextDoc(context.components),
  richtextDocInput: () => richtextDocInput(context.components),
  asset: () => asset(context.components),
  assetInput: () => assetInput(context.components),
  relationInput: () => relationInput(context.components),
  relationChanges: () => relationChanges(context.components),
  relationItem: (field) => relationItem(context, projection().targets.get(field.key)!),
  component: (component) => componentSchema(context, projection(), component, componentFieldSchema(context)),
  dynamicZoneItem: (field) => dynamicZoneItemSchema(context, projection(), field, componentFieldSchema(context)),
});

/** A field of a component, as the component's projection shows it. */
const componentFieldSchema = (context: DocumentContext) => (projection: Projection, field: Field) =>
  fieldSchema(
    codecOf(field).readSchema(
      field,
      schemaKit(context, projection.resource, () => projection),
    ),
    field,
  );

/**
 * A field's value schema as the document shows it: null admitted as its type says (required values are
 * never null in a published record: Strapi checks them on publish), described by the field's label.
 */
export const fieldSchema = (value: ValueSchema, field: Field): Schema => {
  const admitsNull = value.nullable === 'always' || (value.nullable === 'unless-required' && !field.required);
  return { ...(admitsNull ? nullable(value.schema) : value.schema), description: field.label };
};

export const readFieldSchema = (context: DocumentContext, resource: Resource, field: Field): Schema =>
  fieldSchema(codecOf(field).readSchema(field, schemaKit(context, resource)), field);

export const attributesSchema = (context: DocumentContext, resource: Resource): Ref =>
  context.components.schema(`${context.nameOf(resource)}Attributes`, () => {
    const projection = context.projectionOf(resource);
    // None is required: a sparse fieldset (`fields[type]`) may leave any of them out.
    return object(Object.fromEntries(projection.readable.map((field) => [field.key, readFieldSchema(context, resource, field)])), [], {
      description: `The fields of ${resource.id} this key may read: every one, unless a sparse fieldset (\`fields[${resource.slug}]\`) names those to show.`,
    });
  });

export const recordSchema = (context: DocumentContext, resource: Resource): Ref =>
  context.components.schema(`${context.nameOf(resource)}Record`, () =>
    object(
      {
        type: { type: 'string', const: resource.slug },
        id: { type: 'string', description: 'The stable record id.' },
        attributes: attributesSchema(context, resource),
        meta: recordMeta(context.components, context.preview),
      },
      undefined,
      { description: `A record of ${resource.id}.` },
    ),
  );

const resourceMeta = (resource: Resource): Schema =>
  object({
    name: { type: 'string', const: resource.name },
    slug: { type: 'string', const: resource.slug },
    mode: { type: 'string', const: resource.mode },
  });

const fieldsMeta = (context: DocumentContext): Schema => ({
  type: 'array',
  description: 'The fields this key may read or write; with a sparse fieldset for the resource, the fields its records show.',
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
          ['self'],
        ),
        meta: object({
          resource: resourceMeta(resource),
          fields: fieldsMeta(context),
          page: object({ nextCursor: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last page.' } }),
        }),
        data: { type: 'array', items: recordSchema(context, resource) },
      },
      undefined,
      { description: `A page of ${resource.id}.` },
    ),
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
      { description: `One record of ${resource.id}.` },
    ),
  );
