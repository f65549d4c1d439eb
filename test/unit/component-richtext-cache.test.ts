/**
 * Richtext inside components goes through the conversion cache like top-level richtext (issue 17), keyed
 * by the component's row and field and by the version of the record it belongs to: a component row has no
 * `updatedAt` of its own, and the content manager edits it in place (same row id), so only the record's
 * `updatedAt` (set by every write of the document) tells an edit.
 */
import type { Projection } from '../../src/plugins/public-api/server/src/grants/projection';
import type { Field } from '../../src/plugins/public-api/server/src/registry/types';
import { componentVersions, loadRecords, type LoadContext } from '../../src/plugins/public-api/server/src/read/load';
import type { ComponentLink, RecordRow, Related } from '../../src/plugins/public-api/server/src/serialize/rows';
import { createRichtextReader } from '../../src/plugins/public-api/server/src/serialize/richtext-read';
import { deriveAssetKey } from '../../src/plugins/public-api/server/src/assets/token';

const PAGE = 'api::page.page';
const RICH_TEXT = 'sections.rich-text';
const HERO = 'sections.hero';

const field = (key: string, type: Field['type'], extra: Partial<Field> = {}): Field =>
  ({ key, label: key, type, required: false, localized: false, attribute: { type }, ...extra }) as Field;

const projectionOf = (uid: string, readable: Field[], components: Map<string, Projection> = new Map()): Projection =>
  ({ resource: { uid, slug: uid }, readable, targets: new Map(), components, fields: [] }) as unknown as Projection;

const body = field('body', 'richtext');
const richText = projectionOf(RICH_TEXT, [body]);
const sections = field('sections', 'dynamiczone', { components: [{ uid: RICH_TEXT } as never] });
const page = projectionOf(PAGE, [sections], new Map([[RICH_TEXT, richText]]));

const blocks = (text: string) => JSON.stringify([{ type: 'paragraph', children: [{ type: 'text', text }] }]);

const recordRow = (rowId: number, updatedAt: unknown): RecordRow => ({
  rowId,
  documentId: `doc${rowId}`,
  slug: null,
  sort: null,
  createdAt: 0,
  updatedAt,
  publishedAt: 0,
  values: {},
});

/** A page row (id 1) whose zone holds one rich-text section (component row 7) with `text`, and what the loader asked the cache. */
const load = async (updatedAt: unknown, text: string, convert = createRichtextReader()) => {
  const identities: (string | undefined)[] = [];
  const key = deriveAssetKey('a-server-secret-of-at-least-32-characters');
  const context: LoadContext = {
    source: {
      relations: async () => new Map(),
      media: async () => new Map(),
      byRowIds: async () => [],
      imageFiles: async () => new Map(),
      componentLinks: async (ownerUid) =>
        new Map(ownerUid === PAGE ? [['sections', new Map([[1, [{ rowId: 7, component: RICH_TEXT }]]])]] : []),
      componentRows: async () => [{ ...recordRow(7, undefined), documentId: '', values: { body: blocks(text) } }],
    },
    language: null,
    fallback: [],
    projectionOf: () => page,
    fieldsets: new Map(),
    asset: () => ({}) as never,
    richtext: (raw, identity) => {
      identities.push(identity);
      return convert(raw, 'https://example.org/api/v2', key, identity);
    },
    currentImages: (doc) => doc,
  };
  const [record] = await loadRecords(context, page, [recordRow(1, updatedAt)], []);
  const [section] = record!.attributes.sections as { attributes: { body: { content: { content: { text: string }[] }[] } } }[];
  return { identities, text: section!.attributes.body.content[0]!.content[0]!.text };
};

test('a component richtext value is converted under an identity, the same while the record is unchanged', async () => {
  const convert = createRichtextReader();
  const first = await load(1_700_000_000_000, 'Hello', convert);
  const again = await load(1_700_000_000_000, 'Hello', convert);
  expect(first.identities).toHaveLength(1);
  expect(first.identities[0]).toEqual(expect.any(String));
  expect(again.identities).toEqual(first.identities);
  expect(again.text).toBe('Hello');
});

test('an edit of the component in place (same row, the record written again) changes the key: the edit shows at once', async () => {
  const convert = createRichtextReader();
  const before = await load(1_700_000_000_000, 'Hello', convert);
  // Same length, same component row id: only the record's updatedAt tells the edit.
  const after = await load(1_700_000_000_001, 'Howdy', convert);
  expect(after.identities[0]).not.toBe(before.identities[0]);
  expect(after.text).toBe('Howdy');
  // A record's version is told by its Date or by the number the driver gives.
  const dated = await load(new Date(1_700_000_000_001), 'Howdy', convert);
  expect(dated.identities).toEqual(after.identities);
});

test("nested component rows carry their top-level record's version; a row without one gets none", () => {
  const links = (owner: number, rowId: number, component: string): Related<ComponentLink> =>
    new Map([['sections', new Map([[owner, [{ rowId, component }]]])]]);
  const top = componentVersions(page, [recordRow(1, 1_700_000_000_000)], links(1, 7, HERO));
  const version = top.get(HERO)!.get(7)!;
  expect(version).toContain(PAGE);
  // The hero's row (7) owns a nested link component (row 9): it passes the page's version on.
  const hero = projectionOf(HERO, []);
  const heroRow = { ...recordRow(7, undefined), version };
  expect(
    componentVersions(hero, [heroRow], links(7, 9, 'shared.link'))
      .get('shared.link')!
      .get(9),
  ).toBe(version);
  // Another version of the page (its updatedAt) is another version of every component inside.
  expect(
    componentVersions(page, [recordRow(1, 1_700_000_000_002)], links(1, 7, HERO))
      .get(HERO)!
      .get(7),
  ).not.toBe(version);
  expect(componentVersions(hero, [recordRow(7, undefined)], links(7, 9, 'shared.link')).size).toBe(0);
});
