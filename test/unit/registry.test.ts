import {
  assertNoReservedFieldNames,
  buildWebsiteResources,
  type ContentTypeSchema,
} from '../../src/plugins/public-api/server/src/registry/build';
import { fieldTypeOf } from '../../src/plugins/public-api/server/src/fields/table';
import { toField } from '../../src/plugins/public-api/server/src/registry/fields';
import { validatePublications } from '../../src/plugins/public-api/server/src/registry/publications';

test.each([
  [{ type: 'string' }, 'string'],
  [{ type: 'email' }, 'string'],
  [{ type: 'uid' }, 'string'],
  [{ type: 'text' }, 'text'],
  [{ type: 'richtext' }, 'markdown'],
  [{ type: 'blocks' }, 'richtext'],
  [{ type: 'integer' }, 'number'],
  [{ type: 'biginteger' }, 'number'],
  [{ type: 'float' }, 'number'],
  [{ type: 'decimal' }, 'number'],
  [{ type: 'boolean' }, 'boolean'],
  [{ type: 'date' }, 'date'],
  [{ type: 'datetime' }, 'datetime'],
  [{ type: 'enumeration', enum: ['a'] }, 'select'],
  [{ type: 'json', customField: 'plugin::public-api.tags' }, 'tags'],
  [{ type: 'json' }, null],
  [{ type: 'password' }, null],
  [{ type: 'component' }, null],
  [{ type: 'dynamiczone' }, null],
  [{ type: 'media', multiple: false, allowedTypes: ['images'] }, 'image'],
  [{ type: 'media', multiple: false, allowedTypes: ['images', 'files'] }, 'file'],
  [{ type: 'media', multiple: true, allowedTypes: ['images'] }, 'images'],
  [{ type: 'media', multiple: true }, 'files'],
  [{ type: 'relation', relation: 'manyToOne', target: 'api::a.a' }, 'relation'],
  [{ type: 'relation', relation: 'oneToOne', target: 'api::a.a' }, 'relation'],
  [{ type: 'relation', relation: 'oneToMany', target: 'api::a.a' }, 'relations'],
  [{ type: 'relation', relation: 'manyToMany', target: 'api::a.a' }, 'relations'],
  [{ type: 'relation', relation: 'morphToMany' }, null],
  [{ type: 'relation', relation: 'oneToOne', target: 'admin::user' }, null],
])('%j maps to %s', (attribute, type) => {
  expect(fieldTypeOf(attribute)).toBe(type);
});

test('fields carry options, MIME patterns, labels and localization', () => {
  expect(toField('category', { type: 'enumeration', enum: ['live-music'], required: true }, true)).toMatchObject({
    key: 'category',
    label: 'Category',
    type: 'select',
    required: true,
    localized: true,
    options: [{ value: 'live-music', label: 'Live music' }],
  });
  expect(toField('startsAt', { type: 'datetime', pluginOptions: { i18n: { localized: false } } }, true)).toMatchObject({
    label: 'Starts at',
    localized: false,
  });
  expect(toField('cover', { type: 'media', allowedTypes: ['images'] }, false)?.allowedTypes).toEqual(['image/*']);
  expect(toField('secret', { type: 'string', private: true }, false)).toBeNull();
  expect(toField('createdAt', { type: 'datetime' }, false)).toBeNull();
});

const schema = (
  uid: string,
  attributes: ContentTypeSchema['attributes'],
  kind: ContentTypeSchema['kind'] = 'collectionType',
): ContentTypeSchema => ({
  uid,
  kind,
  info: { displayName: uid, pluralName: 'things', singularName: 'thing' },
  options: { draftAndPublish: true },
  attributes,
});

test('an attribute named id or type is refused with a message naming the type and field', () => {
  expect(() => assertNoReservedFieldNames(schema('api::bad.bad', { type: { type: 'string' } }))).toThrow(
    "Content type api::bad.bad has an attribute named 'type'",
  );
  expect(() => assertNoReservedFieldNames(schema('api::bad.bad', { id: { type: 'string' } }))).toThrow("named 'id'");
});

test('website resources are scoped by the relation to the website, which is not a field', () => {
  const schemas = new Map([
    [
      'api::page.page',
      schema('api::page.page', {
        title: { type: 'string' },
        slug: { type: 'uid' },
        website: { type: 'relation', relation: 'manyToOne', target: 'plugin::public-api.website' },
      }),
    ],
    ['api::home.home', schema('api::home.home', { headline: { type: 'string' } }, 'singleType')],
  ]);
  const skipped: string[] = [];
  const resources = buildWebsiteResources(
    {
      id: 1,
      documentId: 'w1',
      slug: 'site',
      name: 'Site',
      publications: [
        { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
        { collection: 'home', contentType: 'api::home.home', mode: 'collection' },
        { collection: 'gone', contentType: 'api::gone.gone', mode: 'collection' },
      ],
    },
    schemas,
    {},
    (reason) => skipped.push(reason),
  );
  expect(resources.map((r) => [r.id, r.mode, r.scopeAttribute, r.fields.map((f) => f.key), r.identifiers])).toEqual([
    ['cms:site/pages', 'collection', 'website', ['title', 'slug'], ['slug', 'id']],
    ['cms:site/home', 'singleton', undefined, ['headline'], ['id']],
  ]);
  expect(skipped).toEqual(["Website 'site' publishes 'gone' from api::gone.gone, which does not exist."]);
});

test('publications are validated', () => {
  const schemas = new Map([
    ['api::page.page', schema('api::page.page', { title: { type: 'string' } })],
    ['api::home.home', schema('api::home.home', { headline: { type: 'string' } }, 'singleType')],
    ['api::bad.bad', schema('api::bad.bad', { type: { type: 'string' } })],
    ['plugin::public-api.api-key', schema('plugin::public-api.api-key', {})],
  ]);
  expect(validatePublications([{ collection: 'pages', contentType: 'api::page.page' }], schemas)).toEqual({
    ok: true,
    value: [{ collection: 'pages', contentType: 'api::page.page', mode: 'collection' }],
  });
  const result = validatePublications(
    [
      { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
      { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
      { collection: 'home', contentType: 'api::home.home', mode: 'collection' },
      { collection: 'bad', contentType: 'api::bad.bad', mode: 'collection' },
      { collection: 'keys', contentType: 'plugin::public-api.api-key', mode: 'collection' },
      { collection: 'nope', contentType: 'api::nope.nope', mode: 'collection' },
    ],
    schemas,
  );
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.issues.map((issue) => issue.path.join('.'))).toEqual([
    '1.collection',
    '2.mode',
    '3.contentType',
    '4.contentType',
    '5.contentType',
  ]);
  expect(validatePublications([{ collection: 'Bad Slug', contentType: 'api::page.page' }], schemas).ok).toBe(false);
});
