/**
 * The pure parts of the plugin's slugs: candidates made from untrusted titles, which content types keep
 * a plugin slug and within what, and which versions of a written document need a slug or clash.
 */
import fc from 'fast-check';
import { buildWebsiteResources } from '../../src/plugins/public-api/server/src/registry/build';
import type { StrapiAttribute } from '../../src/plugins/public-api/server/src/registry/types';
import { candidatesOf, CANDIDATES_PER_QUERY, slugBase } from '../../src/plugins/public-api/server/src/slugs/candidates';
import { slugDefinitionOf, uidSlugsAcrossWebsites } from '../../src/plugins/public-api/server/src/slugs/definition';
import { clashingVersions, missingSlugs, type SlugHolder, type SlugVersion } from '../../src/plugins/public-api/server/src/slugs/versions';

/** Strapi's own rule for a published uid, which the plugin slug keeps (the schema's regex). */
const UID_CHARACTERS = /^[A-Za-z0-9-_.~]*$/;

describe('candidates', () => {
  test('whatever the title, the base slug is non-empty and made of uid characters (the model name when nothing slugifies)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('!!!', '', '   ', 'Über uns', '東京', 'About us')),
        (title) => {
          const base = slugBase(title, [undefined, 'page']);
          expect(base).not.toBe('');
          expect(base).toMatch(UID_CHARACTERS);
        },
      ),
    );
    expect(slugBase('About us!', [undefined, 'page'])).toBe('about-us');
    expect(slugBase('!!!', [undefined, 'page'])).toBe('page');
    expect(slugBase(null, ['Default Slug', 'page'])).toBe('default-slug');
  });

  test('candidates run x, x-1, x-2 ... without gaps or repeats across batches', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]+(-[a-z0-9]+)*$/), fc.nat(50), (base, batches) => {
        const all = Array.from({ length: batches + 1 }, (_, batch) => candidatesOf(base, batch)).flat();
        expect(all).toHaveLength((batches + 1) * CANDIDATES_PER_QUERY);
        expect(all).toEqual(all.map((_, n) => (n === 0 ? base : `${base}-${n}`)));
      }),
    );
  });
});

const website = (relation = 'manyToOne'): StrapiAttribute => ({ type: 'relation', relation, target: 'plugin::public-api.website' });
const pluginSlug = (targetField?: string): StrapiAttribute => ({
  type: 'string',
  pluginOptions: { 'public-api': { slug: targetField ? { targetField } : {} } },
});

describe('definitions', () => {
  test('a string declared as the plugin slug is the slug, unique within the website relation', () => {
    const schema = { uid: 'api::page.page', attributes: { title: { type: 'string' }, slug: pluginSlug('title'), website: website() } };
    expect(slugDefinitionOf(schema)).toEqual({
      uid: 'api::page.page',
      attribute: 'slug',
      targetField: 'title',
      scopeAttribute: 'website',
      localized: false,
    });
    expect(
      slugDefinitionOf({ uid: 'api::tag.tag', pluginOptions: { i18n: { localized: true } }, attributes: { code: pluginSlug() } }),
    ).toEqual({
      uid: 'api::tag.tag',
      attribute: 'code',
      targetField: undefined,
      scopeAttribute: undefined,
      localized: true,
    });
    // Strapi keeps uids itself; plain strings are no slug.
    expect(slugDefinitionOf({ uid: 'api::event.event', attributes: { slug: { type: 'uid', targetField: 'title' } } })).toBeNull();
    expect(slugDefinitionOf({ uid: 'api::note.note', attributes: { slug: { type: 'string' }, website: website() } })).toBeNull();
  });

  test('the registry takes the plugin slug as the record slug, as it takes a uid', () => {
    const schemas = new Map([
      [
        'api::page.page',
        {
          uid: 'api::page.page',
          kind: 'collectionType' as const,
          info: { displayName: 'Page', pluralName: 'pages', singularName: 'page' },
          attributes: { title: { type: 'string' }, slug: pluginSlug('title'), website: website() },
        },
      ],
    ]);
    const [resource] = buildWebsiteResources(
      {
        id: 1,
        documentId: 'w1',
        slug: 'site',
        name: 'Site',
        publications: [{ collection: 'pages', contentType: 'api::page.page', mode: 'collection' }],
      },
      schemas,
    );
    expect(resource).toMatchObject({ slugAttribute: 'slug', scopeAttribute: 'website', identifiers: ['slug', 'id'] });
    expect(resource!.fields.find((field) => field.key === 'slug')).toMatchObject({ type: 'string' });
  });

  test('a uid on a website-scoped content type is reported: Strapi keeps it unique across websites', () => {
    expect(
      uidSlugsAcrossWebsites([
        { uid: 'api::page.page', attributes: { slug: { type: 'uid' }, website: website('oneToOne') } },
        { uid: 'api::event.event', attributes: { slug: { type: 'uid' } } },
        { uid: 'api::post.post', attributes: { slug: pluginSlug('title'), website: website() } },
      ]),
    ).toEqual(['api::page.page.slug']);
  });
});

describe('versions', () => {
  const version = fc.record({
    id: fc.nat(30),
    locale: fc.constantFrom(null, 'en', 'de'),
    published: fc.boolean(),
    slug: fc.constantFrom(null, '', 'a', 'b', 'a-1'),
    source: fc.constantFrom('A', 'B'),
    website: fc.constantFrom(null, 1, 2),
  });
  const holder = fc.record({
    slug: fc.constantFrom('a', 'b', 'a-1'),
    locale: fc.constantFrom(null, 'en', 'de'),
    website: fc.constantFrom(null, 1, 2),
  });
  const uniqueIds = (rows: SlugVersion[]) => rows.filter((row, index) => rows.findIndex((other) => other.id === row.id) === index);

  test('every version without a slug is in exactly one group, with the versions of its locale and website', () => {
    fc.assert(
      fc.property(fc.array(version, { maxLength: 8 }).map(uniqueIds), (rows) => {
        const groups = missingSlugs(rows);
        const grouped = groups.flatMap((group) => group.rowIds);
        expect(grouped.sort()).toEqual(
          rows
            .filter((row) => row.slug === null || row.slug === '')
            .map((row) => row.id)
            .sort(),
        );
        for (const group of groups) {
          for (const id of group.rowIds)
            expect(rows.find((row) => row.id === id)).toMatchObject({ locale: group.locale, website: group.website });
        }
        expect(new Set(groups.map((group) => JSON.stringify([group.locale, group.website]))).size).toBe(groups.length);
      }),
    );
    // The draft is what the editor wrote last: its value is the source.
    const rows: SlugVersion[] = [
      { id: 2, locale: null, published: true, slug: null, source: 'Old title', website: 1 },
      { id: 1, locale: null, published: false, slug: '', source: 'New title', website: 1 },
    ];
    expect(missingSlugs(rows)).toEqual([{ locale: null, website: 1, source: 'New title', rowIds: [1, 2] }]);
  });

  test('a version clashes only when published and another document publishes its slug in the same locale and website', () => {
    fc.assert(
      fc.property(fc.array(version, { maxLength: 6 }).map(uniqueIds), fc.array(holder, { maxLength: 6 }), (rows, others: SlugHolder[]) => {
        const clashing = new Set(clashingVersions(rows, others).map((row) => row.id));
        for (const row of rows) {
          const held = others.some((other) => other.slug === row.slug && other.locale === row.locale && other.website === row.website);
          expect([row, clashing.has(row.id)]).toEqual([row, row.published && held]);
        }
      }),
    );
  });
});
