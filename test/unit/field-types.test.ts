/**
 * The table of field types and the table of system keys (fields/): complete, one type per Strapi
 * attribute, and each type agreeing with itself: what it serializes from any value the databases may
 * hand it validates against its own read schema, and a value it reads can be written back (its
 * write schema and its write judge both take it).
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import type { FieldType as ContractFieldType } from '../../src/plugins/public-api/shared/contracts/registry';
import type { ColumnCodec, ComponentCodec, FieldCodec, LinkCodec } from '../../src/plugins/public-api/server/src/fields/codec';
import { FILTER_KINDS } from '../../src/plugins/public-api/server/src/fields/filter-kinds';
import {
  META_ENTRIES,
  RESERVED_FIELD_NAMES,
  STRAPI_SYSTEM_ATTRIBUTES,
  SYSTEM_FILTER_TARGETS,
  SYSTEM_KEYS,
  SYSTEM_SORT_KEYS,
  hasSystemKey,
} from '../../src/plugins/public-api/server/src/fields/system-keys';
import {
  FIELD_CODECS,
  MEDIA_FIELD_TYPES,
  RELATION_FIELD_TYPES,
  codecOf,
  fieldTypeOf,
} from '../../src/plugins/public-api/server/src/fields/table';
import { TAGS_CUSTOM_FIELD } from '../../src/plugins/public-api/server/src/fields/types/tags';
import { allGrants } from '../../src/plugins/public-api/server/src/grants/resolve';
import { project, type Projection } from '../../src/plugins/public-api/server/src/grants/projection';
import { targetResolver } from '../../src/plugins/public-api/server/src/grants/targets';
import { Components } from '../../src/plugins/public-api/server/src/openapi/document-components';
import type { DocumentContext } from '../../src/plugins/public-api/server/src/openapi/context';
import { fieldSchema, schemaKit } from '../../src/plugins/public-api/server/src/openapi/records';
import type { Schema } from '../../src/plugins/public-api/server/src/openapi/types';
import { FILTER_OPERATORS } from '../../src/plugins/public-api/server/src/query/types';
import { NATIVE_RESOURCES } from '../../src/settings/native-resources';
import { buildNativeResources, type ContentTypeSchema } from '../../src/plugins/public-api/server/src/registry/build';
import { componentCatalog, type StrapiComponentSchema } from '../../src/plugins/public-api/server/src/registry/components';
import {
  FIELD_TYPES,
  type Field,
  type FieldType,
  type Resource,
  type StrapiAttribute,
} from '../../src/plugins/public-api/server/src/registry/types';
import { assetObject } from '../../src/plugins/public-api/server/src/serialize/assets';
import { deriveAssetKey } from '../../src/plugins/public-api/server/src/assets/token';
import { createRichtextReader } from '../../src/plugins/public-api/server/src/serialize/richtext-read';
import type { FileRow, RecordRow } from '../../src/plugins/public-api/server/src/serialize/rows';
import { INTEGER_RANGE } from '../../src/plugins/public-api/server/src/values/numbers';
import { writeContextOf } from '../../src/plugins/public-api/server/src/write/attributes';
import { MAX_INSTANT, MIN_INSTANT } from '../../src/plugins/public-api/server/src/values/calendar';
import { contentTypeSchemas, demoResources } from '../helpers/registry';

// ---------------------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------------------

test('every field type has exactly its own entry, and the admin contract names the same types', () => {
  expect(Object.keys(FIELD_CODECS).sort()).toEqual([...FIELD_TYPES].sort());
  for (const type of FIELD_TYPES) expect(FIELD_CODECS[type].type).toBe(type);
  // Both directions must compile: the admin's copy of the type list is the registry's.
  const toContract = (type: FieldType): ContractFieldType => type;
  const fromContract = (type: ContractFieldType): FieldType => type;
  expect(FIELD_TYPES.map(toContract).map(fromContract)).toEqual([...FIELD_TYPES]);
});

test('links are stored as links and show one item or a list, by type', () => {
  expect([...RELATION_FIELD_TYPES]).toEqual(['relation', 'relations']);
  expect([...MEDIA_FIELD_TYPES]).toEqual(['image', 'file', 'images', 'files']);
  const links = FIELD_TYPES.map((type) => FIELD_CODECS[type]).filter(
    (codec): codec is LinkCodec => codec.storage === 'relation' || codec.storage === 'media',
  );
  expect(Object.fromEntries(links.map((codec) => [codec.type, codec.cardinality]))).toEqual({
    image: 'one',
    file: 'one',
    images: 'many',
    files: 'many',
    relation: 'one',
    relations: 'many',
  });
  for (const codec of links) {
    expect(codec.serialize([])).toEqual(codec.cardinality === 'one' ? null : []);
    expect(codec.serialize(['a', 'b'])).toEqual(codec.cardinality === 'one' ? 'a' : ['a', 'b']);
  }
});

test('component values: one object, a list of them, or a dynamic zone of typed items; writes take them back', () => {
  const items = [
    { component: 'shared.link', attributes: { label: 'A' } },
    { component: 'sections.hero', attributes: { heading: 'B' } },
  ];
  const components = FIELD_TYPES.map((type) => FIELD_CODECS[type]).filter(
    (codec): codec is ComponentCodec => codec.storage === 'component',
  );
  expect(components.map((codec) => codec.type)).toEqual(['component', 'components', 'dynamiczone']);
  const [one, many, zone] = components as [ComponentCodec, ComponentCodec, ComponentCodec];
  expect(one.serialize([])).toBeNull();
  expect(one.serialize(items.slice(0, 1))).toEqual({ label: 'A' });
  expect(many.serialize(items)).toEqual([{ label: 'A' }, { heading: 'B' }]);
  expect(zone.serialize(items)).toEqual([
    { type: 'shared.link', attributes: { label: 'A' } },
    { type: 'sections.hero', attributes: { heading: 'B' } },
  ]);
  for (const codec of components) {
    expect(codec.readOnly).toBeUndefined();
    expect(codec.sortable({} as Field)).toBe(false);
    expect(codec.filter({} as Field)).toBeNull();
  }
});

test('every field of the demo content types is one its type accepts, with filter and sort as its type says', () => {
  const fields = demoResources().flatMap((resource) => resource.fields);
  expect(new Set(fields.map((field) => field.type)).size).toBeGreaterThan(10);
  for (const field of fields) {
    const codec = codecOf(field);
    expect(codec.accepts(field.attribute)).toBe(true);
    expect(fieldTypeOf(field.attribute)).toBe(field.type);
    const target = codec.filter(field);
    if (target) expect(FILTER_KINDS[target.type]).toBeDefined();
    if (codec.sortable(field)) expect(codec.scalar).toBe(true);
  }
});

const STRAPI_TYPES = [
  'string',
  'email',
  'uid',
  'time',
  'text',
  'richtext',
  'blocks',
  'integer',
  'biginteger',
  'float',
  'decimal',
  'boolean',
  'date',
  'datetime',
  'timestamp',
  'enumeration',
  'json',
  'customField',
  'media',
  'relation',
  'password',
  'component',
  'dynamiczone',
] as const;

const attributeArbitrary: fc.Arbitrary<StrapiAttribute> = fc.record(
  {
    type: fc.constantFrom(...STRAPI_TYPES),
    multiple: fc.boolean(),
    allowedTypes: fc.option(fc.subarray(['images', 'files', 'videos', 'audios', 'application/pdf']), { nil: undefined }),
    relation: fc.constantFrom('oneToOne', 'manyToOne', 'oneToMany', 'manyToMany', 'morphToMany', 'morphOne'),
    target: fc.constantFrom('api::event.event', 'admin::user', ''),
    customField: fc.constantFrom(TAGS_CUSTOM_FIELD, 'plugin::color-picker.color'),
  },
  { requiredKeys: ['type'] },
);

test('no Strapi attribute is accepted by two types (property)', () => {
  fc.assert(
    fc.property(attributeArbitrary, (attribute) => {
      const accepting = FIELD_TYPES.filter((type) => FIELD_CODECS[type].accepts(attribute));
      expect(accepting.length).toBeLessThanOrEqual(1);
      expect(fieldTypeOf(attribute)).toBe(accepting[0] ?? null);
    }),
    { numRuns: 2000 },
  );
});

test('filter kinds: range operators only on ordered kinds, substring operators only on free text', () => {
  const kindsWith = (op: (typeof FILTER_OPERATORS)[number]) =>
    Object.entries(FILTER_KINDS)
      .filter(([, kind]) => kind.operators.has(op))
      .map(([type]) => type)
      .sort();
  for (const op of ['eq', 'ne', 'in', 'null'] as const) expect(kindsWith(op)).toEqual(Object.keys(FILTER_KINDS).sort());
  for (const op of ['lt', 'lte', 'gt', 'gte'] as const) expect(kindsWith(op)).toEqual(['date', 'datetime', 'number']);
  for (const op of ['contains', 'startsWith'] as const) expect(kindsWith(op)).toEqual(['string', 'text']);
  for (const kind of Object.values(FILTER_KINDS)) for (const op of kind.operators) expect(FILTER_OPERATORS).toContain(op);
});

// ---------------------------------------------------------------------------------------------------------
// System keys
// ---------------------------------------------------------------------------------------------------------

test('system keys: meta lists the row values in order, sort and filter keys are system keys, none can be a field', () => {
  const row: RecordRow = { rowId: 1, documentId: 'd', slug: 's', sort: 2, createdAt: 3, updatedAt: 4, publishedAt: 5, values: {} };
  expect(META_ENTRIES.map(([key]) => key)).toEqual(['slug', 'sort', 'createdAt', 'updatedAt', 'publishedAt']);
  for (const [key] of META_ENTRIES) expect(row).toHaveProperty(key);
  expect(SYSTEM_SORT_KEYS.every((key) => key in SYSTEM_KEYS)).toBe(true);
  expect([...SYSTEM_FILTER_TARGETS.keys()]).toEqual(['slug', 'createdAt', 'updatedAt', 'publishedAt']);
  for (const name of RESERVED_FIELD_NAMES) expect(STRAPI_SYSTEM_ATTRIBUTES.has(name) || name === 'type').toBe(true);
  // Keys every resource has are Strapi's own attributes; slug and sort exist only where the schema has them.
  for (const [key, entry] of Object.entries(SYSTEM_KEYS)) {
    const attribute = entry.attribute({});
    if (attribute !== undefined) expect(STRAPI_SYSTEM_ATTRIBUTES.has(attribute)).toBe(true);
    else expect(['slug', 'sort']).toContain(key);
  }
  expect(hasSystemKey({ slugAttribute: 'handle' }, 'slug')).toBe(true);
  expect(SYSTEM_KEYS.slug.attribute({ slugAttribute: 'handle' })).toBe('handle');
  expect(hasSystemKey({}, 'sort')).toBe(false);
});

// ---------------------------------------------------------------------------------------------------------
// Each type agrees with itself: serialize -> read schema, read value -> write schema and write judge
// ---------------------------------------------------------------------------------------------------------

const EVERY_TYPE: ContentTypeSchema['attributes'] = {
  slug: { type: 'uid', targetField: 'title' },
  title: { type: 'string' },
  mail: { type: 'email' },
  at: { type: 'time' },
  summary: { type: 'text' },
  notes: { type: 'richtext' },
  body: { type: 'blocks' },
  count: { type: 'integer' },
  big: { type: 'biginteger' },
  ratio: { type: 'float' },
  price: { type: 'decimal' },
  active: { type: 'boolean' },
  day: { type: 'date' },
  startsAt: { type: 'datetime' },
  stamped: { type: 'timestamp' },
  category: { type: 'enumeration', enum: ['live-music', 'talk'] },
  labels: { type: 'json', customField: TAGS_CUSTOM_FIELD },
  cover: { type: 'media', allowedTypes: ['images'] },
  brochure: { type: 'media', allowedTypes: ['files'] },
  gallery: { type: 'media', multiple: true, allowedTypes: ['images'] },
  downloads: { type: 'media', multiple: true },
  venue: { type: 'relation', relation: 'manyToOne', target: 'api::event.event' },
  related: { type: 'relation', relation: 'manyToMany', target: 'api::event.event' },
  card: { type: 'component', component: 'test.card', repeatable: false },
  cards: { type: 'component', component: 'test.card', repeatable: true },
  zone: { type: 'dynamiczone', components: ['test.card', 'test.teaser'] },
};

/** Components for the component types: scalars, media, relations, richtext and a nested component inside. */
const TEST_COMPONENTS = (required: boolean): Map<string, StrapiComponentSchema> => {
  const card: StrapiComponentSchema = {
    uid: 'test.card',
    category: 'test',
    info: { displayName: 'Card' },
    attributes: {
      title: { type: 'string', required },
      day: { type: 'date', required },
      picture: { type: 'media', allowedTypes: ['images'], required },
      event: { type: 'relation', relation: 'oneToOne', target: 'api::event.event' },
      body: { type: 'blocks', required },
      teaser: { type: 'component', component: 'test.teaser', repeatable: false, required },
    },
  };
  const teaser: StrapiComponentSchema = {
    uid: 'test.teaser',
    category: 'test',
    info: { displayName: 'Teaser' },
    attributes: { text: { type: 'text', required }, events: { type: 'relation', relation: 'oneToMany', target: 'api::event.event' } },
  };
  return new Map([card, teaser].map((component) => [component.uid, component]));
};

/** The product content type replaced by one with every type, all optional or all required. */
const resourceWithEveryType = (required: boolean) => {
  const schemas = contentTypeSchemas();
  const product = schemas.get('api::product.product')!;
  const attributes = Object.fromEntries(Object.entries(EVERY_TYPE).map(([key, attribute]) => [key, { ...attribute, required }]));
  schemas.set(product.uid, { ...product, attributes });
  const resources = buildNativeResources(NATIVE_RESOURCES, schemas, {}, componentCatalog(TEST_COMPONENTS(required)));
  const resource = resources.find((candidate) => candidate.uid === product.uid)!;
  expect(new Set(resource.fields.map((field) => field.type))).toEqual(new Set(FIELD_TYPES));
  return { resources, resource };
};

const BASE_URL = 'https://api.example.org/api/v2';
const ASSET_KEY = deriveAssetKey('a-server-secret-of-at-least-32-characters');

/** A document context over the resources, and ajv validating a value schema against its components. */
const schemaChecker = (resources: Resource[], resource: Resource) => {
  const grants = allGrants(resources, []);
  const resolve = targetResolver(resources);
  const projections = new Map<string, ReturnType<typeof project>>();
  const context: DocumentContext = {
    components: new Components(),
    grants,
    locales: ['de', 'en'],
    preview: false,
    nameOf: (target) => target.slug.replace(/^./, (char) => char.toUpperCase()),
    projectionOf: (target) => {
      if (!projections.has(target.id)) projections.set(target.id, project(grants, target, resolve));
      return projections.get(target.id)!;
    },
  };
  const kit = schemaKit(context, resource);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const validator = (schema: Schema) => {
    const root = { ...schema, components: { schemas: Object.fromEntries(context.components.schemas) } };
    return ajv.compile(root);
  };
  return { kit, validator, projection: context.projectionOf(resource) };
};

// What the drivers hand over: SQLite (epoch-ms datetimes, 0/1 booleans, text) and PostgreSQL (Date
// objects, booleans, numeric strings for decimals and big integers).
const dayText = fc
  .date({ min: new Date(MIN_INSTANT), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));
const instant = fc.integer({ min: MIN_INSTANT, max: MAX_INSTANT });
const uidText = fc.stringMatching(/^[A-Za-z0-9\-_.~]{1,60}$/);
const shortText = fc.string({ maxLength: 255, unit: 'grapheme' });
const tagList = fc.array(
  fc.string({ minLength: 1, maxLength: 20 }).filter((tag) => tag.trim() !== ''),
  { maxLength: 6 },
);
const blocksText = fc
  .array(
    fc.oneof(
      fc.record({
        type: fc.constant('paragraph'),
        children: fc.array(fc.record({ type: fc.constant('text'), text: fc.string(), bold: fc.boolean() }), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({
        type: fc.constant('heading'),
        level: fc.integer({ min: 1, max: 6 }),
        children: fc.constant([{ type: 'text', text: 'Heading' }]),
      }),
      fc.constant({ type: 'code', language: 'ts', children: [{ type: 'text', text: 'a\nb' }] }),
      fc.constant({
        type: 'quote',
        children: [
          { type: 'text', text: 'q' },
          { type: 'link', url: 'https://example.org', children: [{ type: 'text', text: 'l' }] },
        ],
      }),
      fc.constant({
        type: 'list',
        format: 'ordered',
        children: [
          { type: 'list-item', children: [{ type: 'text', text: 'i' }] },
          { type: 'list', format: 'unordered', indentLevel: 1, children: [{ type: 'list-item', children: [{ type: 'text', text: 'n' }] }] },
        ],
      }),
      fc.constant({
        type: 'image',
        image: {
          documentId: 'f1',
          hash: 'h1',
          name: 'a.png',
          url: '/uploads/h1.png',
          width: 2,
          height: 1,
          mime: 'image/png',
          alternativeText: null,
        },
        children: [{ type: 'text', text: '' }],
      }),
    ),
    { maxLength: 5 },
  )
  .map((blocks) => JSON.stringify(blocks));

/** Stored values a column of the field may hold, as either driver returns them (never null: added below). */
const storedValue = (field: Field): fc.Arbitrary<unknown> => {
  const strapiType = field.attribute.type;
  switch (field.type) {
    case 'string':
      if (strapiType === 'uid') return uidText;
      if (strapiType === 'email') return fc.constantFrom('a@example.org', 'first.last@example.co.uk');
      if (strapiType === 'time') return fc.constantFrom('00:00:00.000', '19:30:00.000', '23:59:59.999');
      return shortText;
    case 'text':
    case 'markdown':
      return fc.string({ maxLength: 2000 });
    case 'richtext':
      return blocksText;
    case 'number':
      if (strapiType === 'integer') return fc.integer({ min: INTEGER_RANGE[0], max: INTEGER_RANGE[1] });
      if (strapiType === 'biginteger') return fc.oneof(fc.maxSafeInteger(), fc.maxSafeInteger().map(String));
      if (strapiType === 'decimal') return fc.integer({ min: -9_999_999_999, max: 9_999_999_999 }).map((cents) => (cents / 100).toFixed(2));
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.constantFrom(0, 1, true, false);
    case 'date':
      return fc.oneof(
        dayText,
        dayText.map((day) => new Date(`${day}T00:00:00Z`)),
      );
    case 'datetime':
      return fc.oneof(
        instant,
        instant.map((millis) => new Date(millis)),
        instant.map((millis) => new Date(millis).toISOString()),
      );
    case 'select':
      return fc.constantFrom(...(field.options ?? []).map((option) => option.value));
    case 'tags':
      return tagList.map((tags) => JSON.stringify(tags));
    default:
      throw new Error(`${field.type} is not stored in a column`);
  }
};

const fileRow: fc.Arbitrary<FileRow> = fc.record({
  id: fc.nat(),
  documentId: fc.stringMatching(/^[a-z0-9]{24}$/),
  name: fc.string({ minLength: 1, maxLength: 40 }),
  alternativeText: fc.option(fc.string()),
  caption: fc.option(fc.string()),
  width: fc.option(fc.nat()),
  height: fc.option(fc.nat()),
  hash: fc.stringMatching(/^[a-z0-9_]{8,20}$/),
  version: fc.option(fc.stringMatching(/^[a-z0-9]{8}$/)),
  ext: fc.option(fc.constantFrom('.png', '.pdf')),
  mime: fc.constantFrom('image/png', 'application/pdf'),
  size: fc.double({ min: 0, max: 1e6, noNaN: true }),
  bytes: fc.option(fc.nat()),
  url: fc.constant('/uploads/x'),
  updatedAt: fc.constant(0),
});

/**
 * Linked items as reads hand them to a link type: asset objects, or references to the target. A to-one
 * link reads null when its file is gone or its target unpublished, which a required field cannot be
 * written with; `present` leaves that case out.
 */
const linkedItems = (codec: LinkCodec, target: string, present: boolean): fc.Arbitrary<unknown[]> => {
  const item: fc.Arbitrary<unknown> =
    codec.storage === 'media'
      ? fileRow.map((file) => assetObject(BASE_URL, ASSET_KEY, file))
      : fc.record({
          id: fc.stringMatching(/^[a-z0-9]{24}$/),
          slug: fc.option(uidText.filter((slug) => slug !== '')),
          collection: fc.constant(target),
        });
  return fc.array(item, { minLength: present && codec.cardinality === 'one' ? 1 : 0, maxLength: codec.cardinality === 'one' ? 1 : 5 });
};

const readRichtext = createRichtextReader();
const readContext = { richtext: (raw: unknown) => readRichtext(raw, BASE_URL, ASSET_KEY) };

describe.each([false, true])('each type agrees with itself (required: %s)', (required) => {
  const { resources, resource } = resourceWithEveryType(required);
  const { kit, validator, projection } = schemaChecker(resources, resource);

  /** Values the field's reads produce, from what its storage may hold (null where the field may be empty). */
  const readValue = (field: Field, codec: FieldCodec, writing = false, owner: Projection = projection): fc.Arbitrary<unknown> => {
    if (codec.storage === 'column') {
      const stored = storedValue(field);
      // A required value is never empty in a published record (Strapi checks it on publish).
      const raw = required ? stored : fc.oneof(stored, fc.constant(null));
      return raw.map((value) => (codec as ColumnCodec).serialize(value, readContext));
    }
    if (codec.storage === 'component') {
      // Each item read out by its component's own fields, as the component's projection shows them.
      const item = (uid: string) => {
        const inner = owner.components.get(uid)!;
        return fc
          .record(Object.fromEntries(inner.readable.map((f) => [f.key, readValue(f, codecOf(f), writing, inner)])))
          .map((attributes) => ({ component: uid, attributes }));
      };
      const one = codec.cardinality === 'one';
      const items = fc.array(fc.oneof(...field.components!.map((component) => item(component.uid))), {
        minLength: one && required ? 1 : 0,
        maxLength: one ? 1 : 3,
      });
      return items.map((list) => codec.serialize(list));
    }
    return linkedItems(codec, owner.targets.get(field.key)?.slug ?? '', writing && required).map((items) => codec.serialize(items));
  };

  test.each(resource.fields.map((field) => [field.key, field] as const))(
    '%s: what it serializes validates against its read schema',
    (_key, field) => {
      const codec = codecOf(field);
      const validate = validator(fieldSchema(codec.readSchema(field, kit), field));
      fc.assert(
        fc.property(readValue(field, codec), (value) => {
          if (!validate(value)) throw new Error(`${JSON.stringify(value)}: ${JSON.stringify(validate.errors)}`);
        }),
        { numRuns: 150 },
      );
    },
  );

  // Component values too: written back whole, each field inside judged by its own type (write/attributes.ts).
  test.each(
    resource.fields
      .filter((field) => !codecOf(field).readOnly)
      .flatMap((field) => (['create', 'update'] as const).map((action) => [field.key, action, field] as const)),
  )('%s: a value it reads can be written back (%s)', (_key, action, field) => {
    const codec = codecOf(field);
    const validate = validator(fieldSchema(codec.writeSchema(field, kit, { isSlug: field.key === resource.slugAttribute, action }), field));
    const context = writeContextOf(projection, field, `/data/attributes/${field.key}`);
    fc.assert(
      fc.property(readValue(field, codec, true), (value) => {
        if (!validate(value)) throw new Error(`${JSON.stringify(value)}: ${JSON.stringify(validate.errors)}`);
        const verdict = codec.parseWrite(value, field, context);
        if (!verdict.ok) throw new Error(`${JSON.stringify(value)}: ${JSON.stringify(verdict.violations)}`);
        if (verdict.planned.kind === 'value' && field.type !== 'tags') expect(verdict.planned.value).toEqual(value);
      }),
      { numRuns: 150 },
    );
  });
});
