/**
 * What a grant change takes out of a key's view (webhooks/lost-resources.ts), which endpoints are told,
 * and which file writes the change journal follows (services/journal/files.ts): pure logic.
 */
import fc from 'fast-check';
import { allows } from '../../src/plugins/public-api/server/src/grants/projection';
import type { KeyGrants } from '../../src/plugins/public-api/server/src/grants/types';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';
import { changesShownFile } from '../../src/plugins/public-api/server/src/services/journal/files';
import { endpointWants, lostResources, REMOVAL_EVENT } from '../../src/plugins/public-api/server/src/webhooks/lost-resources';

const native = (slug: string, uid: string): Resource =>
  ({ id: `native:${slug}`, slug, uid, sourceType: 'native', draftAndPublish: true }) as unknown as Resource;
const cms = (website: { id: number; slug: string }, collection: string, uid: string): Resource =>
  ({
    id: `cms:${website.slug}/${collection}`,
    slug: collection,
    uid,
    sourceType: 'cms',
    draftAndPublish: true,
    website: { ...website, documentId: `w${website.id}`, name: website.slug },
    scopeAttribute: 'website',
  }) as unknown as Resource;

const EVENTS = native('events', 'api::event.event');
const PRODUCTS = native('products', 'api::product.product');
const SITE_A = { id: 1, slug: 'a' };
const A_PAGES = cms(SITE_A, 'pages', 'api::page.page');
const RENAMED_PAGES = cms({ id: 1, slug: 'a2' }, 'pages', 'api::page.page');
const B_PAGES = cms({ id: 2, slug: 'b' }, 'pages', 'api::page.page');
const ALL = [EVENTS, PRODUCTS, A_PAGES, RENAMED_PAGES, B_PAGES];
const resolve = (id: string) => ALL.find((resource) => resource.id === id);

const grants = (resources: Record<string, string[]>): KeyGrants => ({
  resources: Object.fromEntries(
    Object.entries(resources).map(([id, actions]) => [id, { actions, read: ['title'], write: [] }]),
  ) as KeyGrants['resources'],
  commands: [],
  origins: [],
});

describe('lostResources', () => {
  test('a resource no longer readable is lost, with where its records are', () => {
    const lost = lostResources(
      grants({ 'native:events': ['read'], 'cms:a/pages': ['read'] }),
      grants({ 'native:events': ['read'] }),
      resolve,
    );
    expect(lost).toEqual([
      {
        resourceId: 'cms:a/pages',
        recordType: 'pages',
        uid: 'api::page.page',
        draftAndPublish: true,
        websiteId: 1,
        scopeAttribute: 'website',
      },
    ]);
  });

  test('a field-level change, a write action taken away, or a resource added loses nothing', () => {
    const before = grants({ 'native:events': ['read', 'update'] });
    expect(
      lostResources(
        before,
        { ...grants({ 'native:events': ['read'] }), resources: { 'native:events': { actions: ['read'], read: [], write: [] } } },
        resolve,
      ),
    ).toEqual([]);
    expect(lostResources(before, grants({ 'native:events': ['read'], 'native:products': ['read'] }), resolve)).toEqual([]);
  });

  test('a resource only written, never read, is not lost when it goes', () => {
    expect(lostResources(grants({ 'native:events': ['create'] }), grants({}), resolve)).toEqual([]);
  });

  test("a website renamed: the same records under a new id are not lost; another website's are", () => {
    expect(lostResources(grants({ 'cms:a/pages': ['read'] }), grants({ 'cms:a2/pages': ['read'] }), resolve)).toEqual([]);
    expect(
      lostResources(grants({ 'cms:a/pages': ['read'] }), grants({ 'cms:b/pages': ['read'] }), resolve).map((lost) => lost.resourceId),
    ).toEqual(['cms:a/pages']);
  });

  test('a resource that cannot be resolved names no records', () => {
    expect(lostResources(grants({ 'cms:gone/pages': ['read'] }), grants({}), resolve)).toEqual([]);
  });

  test('property: lost = readable before, not after, resolvable, place not kept', () => {
    const ids = ALL.map((resource) => resource.id);
    const arbGrants = fc
      .subarray(ids)
      .chain((chosen) =>
        fc
          .tuple(...chosen.map(() => fc.subarray(['read', 'create', 'update', 'delete'])))
          .map((actions) => grants(Object.fromEntries(chosen.map((id, i) => [id, actions[i]!])))),
      );
    fc.assert(
      fc.property(arbGrants, arbGrants, (before, after) => {
        const lost = lostResources(before, after, resolve);
        for (const entry of lost) {
          expect(allows(before, entry.resourceId, 'read')).toBe(true);
          expect(allows(after, entry.resourceId, 'read')).toBe(false);
        }
        const keptPlaces = new Set(
          ids.filter((id) => allows(after, id, 'read')).map((id) => `${resolve(id)!.uid}|${resolve(id)!.website?.id ?? ''}`),
        );
        const expected = ids.filter(
          (id) =>
            allows(before, id, 'read') &&
            !allows(after, id, 'read') &&
            !keptPlaces.has(`${resolve(id)!.uid}|${resolve(id)!.website?.id ?? ''}`),
        );
        expect(lost.map((entry) => entry.resourceId).sort()).toEqual(expected.sort());
      }),
    );
  });
});

describe('endpointWants', () => {
  const [lost] = lostResources(grants({ 'native:events': ['read'] }), grants({}), resolve);
  test('an endpoint that takes removals, of that resource or of all', () => {
    expect(endpointWants({ events: [REMOVAL_EVENT], resources: [] }, lost!)).toBe(true);
    expect(endpointWants({ events: [REMOVAL_EVENT, 'record.updated'], resources: ['native:events'] }, lost!)).toBe(true);
  });
  test('an endpoint of other resources, or not taking record.unpublished, is not told', () => {
    expect(endpointWants({ events: [REMOVAL_EVENT], resources: ['native:products'] }, lost!)).toBe(false);
    expect(endpointWants({ events: ['record.published', 'record.updated', 'record.deleted'], resources: [] }, lost!)).toBe(false);
  });
});

describe('changesShownFile', () => {
  test.each([
    [{ hash: 'x', url: '/u.png' }, true],
    [{ alternativeText: 'new' }, true],
    [{ caption: 'c' }, true],
    [{ name: 'n.png' }, true],
    [{ formats: {} }, true],
    [{ folderPath: '/1' }, false],
    [{ folder: 3 }, false],
    [{}, false],
    [undefined, false],
  ])('%j -> %s', (data, expected) => {
    expect(changesShownFile(data as Record<string, unknown> | undefined)).toBe(expected);
  });
});
