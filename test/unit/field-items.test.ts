/**
 * Field knowledge asked of fields/ (issue 36): what a field's value is made of (fields/items.ts, from the
 * codecs), what a Strapi attribute is (fields/strapi-attributes.ts), and how each system key is read
 * from a row and pages (fields/system-keys.ts). Each answer is checked for every field type against the
 * codec it comes from, so a new type answers by its codec, not by a list of names.
 */
import type { RecordRow } from '../../src/plugins/public-api/server/src/serialize/rows';
import {
  hasSections,
  isComponentField,
  isRelationField,
  isRichtextField,
  isToMany,
  itemAttributesOf,
  itemComponentOf,
  itemDataOf,
  valueOfItems,
} from '../../src/plugins/public-api/server/src/fields/items';
import { componentUidsOf, isMediaAttribute, isRelationAttribute } from '../../src/plugins/public-api/server/src/fields/strapi-attributes';
import { SYSTEM_KEYS, SYSTEM_SORT_KEYS, systemKeyOf } from '../../src/plugins/public-api/server/src/fields/system-keys';
import { FIELD_CODECS } from '../../src/plugins/public-api/server/src/fields/table';
import { isRelationFilter } from '../../src/plugins/public-api/server/src/fields/filter-kinds';
import { FIELD_TYPES, type FieldType } from '../../src/plugins/public-api/server/src/registry/types';

const typesWhere = (test: (type: FieldType) => boolean): FieldType[] => FIELD_TYPES.filter(test);

test('a field value is many items, links or component rows as its codec says', () => {
  expect(typesWhere((type) => isToMany({ type }))).toEqual(['images', 'files', 'relations', 'components', 'dynamiczone']);
  expect(typesWhere((type) => isRelationField({ type }))).toEqual(['relation', 'relations']);
  expect(typesWhere((type) => isComponentField({ type }))).toEqual(['component', 'components', 'dynamiczone']);
  expect(typesWhere((type) => hasSections({ type }))).toEqual(['dynamiczone']);
  expect(typesWhere((type) => isRichtextField({ type }))).toEqual(['richtext']);
  for (const type of FIELD_TYPES) {
    const codec = FIELD_CODECS[type];
    expect(isToMany({ type })).toBe(codec.storage !== 'column' && codec.cardinality === 'many');
  }
});

test('a component item names its component and holds its attributes as its field says', () => {
  const components = [{ uid: 'blocks.quote' }, { uid: 'blocks.image' }];
  expect(itemComponentOf({ type: 'dynamiczone', components }, 'blocks.image')).toBe('blocks.image');
  expect(itemComponentOf({ type: 'components', components }, 'blocks.image')).toBe('blocks.quote');
  expect(itemComponentOf({ type: 'component', components: [] }, 'x')).toBeUndefined();
  const section = { type: 'blocks.quote', attributes: { text: 'a' } };
  expect(itemAttributesOf({ type: 'dynamiczone' }, section)).toEqual({ text: 'a' });
  expect(itemAttributesOf({ type: 'component' }, { text: 'a' })).toEqual({ text: 'a' });
  expect(itemDataOf({ type: 'dynamiczone' }, 'blocks.quote')).toEqual({ __component: 'blocks.quote' });
  expect(itemDataOf({ type: 'components' }, 'blocks.quote')).toEqual({});
  expect(valueOfItems({ type: 'component' }, [{ a: 1 }, { a: 2 }])).toEqual({ a: 1 });
  expect(valueOfItems({ type: 'component' }, [])).toBeNull();
  expect(valueOfItems({ type: 'components' }, [{ a: 1 }])).toEqual([{ a: 1 }]);
  expect(valueOfItems({ type: 'dynamiczone' }, [])).toEqual([]);
});

test('a Strapi attribute is a relation, media or holds components as its type says', () => {
  expect(isRelationAttribute({ type: 'relation' })).toBe(true);
  expect(isRelationAttribute({ type: 'media' })).toBe(false);
  expect(isMediaAttribute({ type: 'media' })).toBe(true);
  expect(componentUidsOf({ type: 'component', component: 'a.b' })).toEqual(['a.b']);
  expect(componentUidsOf({ type: 'component' })).toEqual([]);
  expect(componentUidsOf({ type: 'dynamiczone', components: ['a.b', 'c.d'] })).toEqual(['a.b', 'c.d']);
  expect(componentUidsOf({ type: 'dynamiczone' })).toEqual([]);
  expect(componentUidsOf({ type: 'string', component: 'a.b' })).toEqual([]);
});

test('a filter compares references for relation fields only', () => {
  for (const type of FIELD_TYPES) {
    const target = FIELD_CODECS[type].filter({
      key: 'x',
      label: 'x',
      type,
      required: false,
      localized: false,
      attribute: { type: 'string' },
    });
    if (target) expect(isRelationFilter(target)).toBe(isRelationField({ type }));
  }
});

test('each system key is read from its row member, and pages as a sort key or as the tiebreaker', () => {
  const row: RecordRow = {
    rowId: 1,
    documentId: 'd',
    slug: 's',
    sort: 2,
    createdAt: 3,
    updatedAt: 4,
    publishedAt: 5,
    values: { slug: 'field' },
  };
  expect(Object.fromEntries(Object.entries(SYSTEM_KEYS).map(([key, entry]) => [key, entry.row(row)]))).toEqual({
    id: 'd',
    slug: 's',
    sort: 2,
    createdAt: 3,
    updatedAt: 4,
    publishedAt: 5,
  });
  expect(
    Object.entries(SYSTEM_KEYS)
      .filter(([, entry]) => entry.paging === 'tiebreaker')
      .map(([key]) => key),
  ).toEqual(['id']);
  expect(SYSTEM_SORT_KEYS.every((key) => systemKeyOf(key)?.paging === 'sort')).toBe(true);
  expect(
    Object.entries(SYSTEM_KEYS)
      .filter(([, entry]) => entry.paging === 'sort')
      .map(([key]) => key)
      .sort(),
  ).toEqual([...SYSTEM_SORT_KEYS].sort());
  expect(systemKeyOf('constructor')).toBeUndefined();
});
