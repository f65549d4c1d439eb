/**
 * What a key needs of its admin's Content Manager rights (grants/content-manager.ts, contract section
 * 18): the needs of grants, the judgement of a change, the refusal's messages, and which permission
 * conditions cover every record. A property test draws random Content Manager field permissions and
 * random grants and compares the judgement with a plain reading of the rule.
 */
import fc from 'fast-check';
import {
  coversEveryRecord,
  issuesOf,
  judge,
  needsOf,
  type Allows,
  type ContentManagerAction,
  type KeyHoldings,
} from '../../src/plugins/public-api/server/src/grants/content-manager';
import type { Field, Resource } from '../../src/plugins/public-api/server/src/registry/types';
import type { ResourceGrant } from '../../src/plugins/public-api/server/src/grants/types';

const field = (key: string, type: Field['type'] = 'string'): Field => ({
  key,
  label: key,
  type,
  required: false,
  localized: false,
  attribute: { type: type === 'component' ? 'component' : 'string' },
});

const UID = 'api::event.event';
/** A component field's Content Manager paths: `seo` is `seo.metaTitle` and `seo.metaDescription`. */
const COMPONENT_PATHS: Record<string, string[]> = { seo: ['seo.metaTitle', 'seo.metaDescription'] };
const FIELDS = ['title', 'slug', 'sort', 'summary', 'seo'];
const PATHS = FIELDS.flatMap((key) => COMPONENT_PATHS[key] ?? [key]);
const pathsOf = (_resource: Resource, key: string) => COMPONENT_PATHS[key] ?? [key];

const events = (overrides: Partial<Resource> = {}): Resource => ({
  id: 'native:events',
  sourceType: 'native',
  slug: 'events',
  name: 'Events',
  mode: 'collection',
  uid: UID,
  kind: 'collectionType',
  localized: true,
  draftAndPublish: true,
  identifiers: ['slug', 'id'],
  deleteMode: 'remove',
  slugAttribute: 'slug',
  sortAttribute: 'sort',
  fields: FIELDS.map((key) => field(key, key === 'seo' ? 'component' : 'string')),
  ...overrides,
});

const holdings = (grant: Partial<ResourceGrant> | null, preview = false): KeyHoldings => ({
  resources: grant ? { 'native:events': { actions: [], read: [], write: [], ...grant } } : {},
  preview,
});

/** A role's Content Manager permissions: per action, none, or the field paths it covers. */
type Role = Partial<Record<ContentManagerAction, string[]>>;
const allowsOf =
  (role: Role): Allows =>
  (action, uid, path) =>
    uid === UID && role[action] !== undefined && (path === null || role[action]!.includes(path));

describe('needsOf', () => {
  test('a read grant needs read of the type, its fields and the slug and sort a record shows; a component every path inside', () => {
    const needs = needsOf(holdings({ actions: ['read'], read: ['title', 'seo'] }), () => events(), pathsOf);
    expect(needs.map((need) => `${need.action} ${need.field ?? '*'}`)).toEqual([
      'read *',
      'read title',
      'read seo.metaTitle',
      'read seo.metaDescription',
      'read slug',
      'read sort',
    ]);
  });

  test('writes need their action on the written fields and publish on a draft-and-publish type; delete needs delete, and publish when it archives', () => {
    const needs = (grant: Partial<ResourceGrant>, resource = events()) =>
      needsOf(holdings(grant), () => resource, pathsOf).map((need) => `${need.action} ${need.field ?? '*'}`);
    expect(needs({ actions: ['create', 'update'], write: ['title'] })).toEqual([
      'create *',
      'create title',
      'publish *',
      'update *',
      'update title',
    ]);
    expect(needs({ actions: ['create'], write: ['title'] }, events({ draftAndPublish: false }))).toEqual(['create *', 'create title']);
    expect(needs({ actions: ['delete'] })).toEqual(['delete *']);
    expect(needs({ actions: ['delete'] }, events({ deleteMode: 'archive' }))).toEqual(['delete *', 'publish *']);
  });

  test('a preview key needs the reads again, of drafts, on draft-and-publish types only; unknown resources need nothing', () => {
    const drafts = (resource: Resource) =>
      needsOf(holdings({ actions: ['read'], read: ['title'] }, true), () => resource, pathsOf).filter((need) => need.drafts);
    expect(drafts(events()).map((need) => need.field)).toEqual([null, 'title', 'slug', 'sort']);
    expect(drafts(events({ draftAndPublish: false }))).toEqual([]);
    expect(needsOf(holdings({ actions: ['read'], read: ['title'] }, true), () => undefined, pathsOf)).toEqual([]);
  });
});

describe('judge', () => {
  const reader = allowsOf({ read: ['title', 'slug', 'sort'] });
  const needs = (grant: Partial<ResourceGrant> | null, preview = false) => needsOf(holdings(grant, preview), () => events(), pathsOf);

  test('a new key needs all it holds; a change that adds nothing is allowed, whatever the key holds', () => {
    expect(judge(null, needs({ actions: ['read'], read: ['title'] }), reader)).toEqual({ ok: true });
    expect(judge(null, needs({ actions: ['read'], read: ['summary'] }), reader)).toMatchObject({ ok: false });
    const wide = needs({ actions: ['read', 'update'], read: ['summary'], write: ['summary'] });
    expect(judge(wide, wide, reader)).toEqual({ ok: true });
    expect(judge(wide, needs({ actions: ['read'], read: ['summary'] }), reader)).toEqual({ ok: true });
    expect(judge(wide, needs(null), reader)).toEqual({ ok: true });
  });

  test('a widening of a key the admin cannot see whole names what the key held as well as what it adds', () => {
    const before = needs({ actions: ['read'], read: ['summary'] });
    const judgement = judge(before, needs({ actions: ['read'], read: ['summary'] }, true), reader);
    expect(judgement.ok).toBe(false);
    if (judgement.ok) return;
    expect(issuesOf(judgement.missing, judgement.held)).toEqual([
      {
        path: ['preview'],
        message:
          "A preview key reads the drafts of native:events, and you may not read 'summary' of api::event.event in the Content Manager.",
      },
      {
        path: ['resources', 'native:events', 'read'],
        message:
          "This key already holds what you may not do in the Content Manager (read 'summary' of api::event.event): you may narrow it, not widen it.",
      },
    ]);
  });
});

describe('coversEveryRecord', () => {
  test('no conditions, or only the locale condition naming every locale, cover every record', () => {
    expect(coversEveryRecord(undefined, ['en'])).toBe(true);
    expect(coversEveryRecord({}, ['en'])).toBe(true);
    expect(coversEveryRecord({ $and: [{ locale: { $in: ['en', 'de'] } }] }, ['de', 'en'])).toBe(true);
    expect(coversEveryRecord({ $and: [{ locale: { $in: ['en'] } }] }, ['de', 'en'])).toBe(false);
    expect(coversEveryRecord({ $and: [{ locale: { $in: [] } }] }, ['en'])).toBe(false);
    expect(coversEveryRecord({ $and: [{ $or: [{ 'createdBy.id': 1 }] }] }, ['en'])).toBe(false);
    expect(coversEveryRecord({ $and: [{ locale: { $in: ['en'] } }, { $or: [{ 'createdBy.id': 1 }] }] }, ['en'])).toBe(false);
    expect(coversEveryRecord({ locale: { $in: ['en'], $nin: ['en'] } }, ['en'])).toBe(false);
    expect(coversEveryRecord('yes', ['en'])).toBe(false);
  });
});

describe('property: random Content Manager permissions against random grants', () => {
  const fieldPaths = fc.subarray(PATHS);
  const role = fc.record(
    { read: fieldPaths, create: fieldPaths, update: fieldPaths, delete: fc.constant<string[]>([]), publish: fc.constant<string[]>([]) },
    { requiredKeys: [] },
  );
  const grant = fc.record({
    actions: fc.subarray(['read', 'create', 'update', 'delete'] as const),
    read: fc.subarray(FIELDS),
    write: fc.subarray(FIELDS),
  });
  const resource = fc.record({ draftAndPublish: fc.boolean(), deleteMode: fc.constantFrom('remove' as const, 'archive' as const) });

  /** The rule read plainly: every path of every field the key reads or writes, per action, and publish where it publishes. */
  const mayHold = (r: Role, g: ResourceGrant, preview: boolean, res: Resource): boolean => {
    const covers = (action: ContentManagerAction, fields: string[]) =>
      r[action] !== undefined && fields.flatMap((key) => COMPONENT_PATHS[key] ?? [key]).every((path) => r[action]!.includes(path));
    if (g.actions.includes('read') && !covers('read', [...g.read, 'slug', 'sort'])) return false;
    void preview; // Strapi 5's Content Manager reads drafts with the same permission.
    for (const action of ['create', 'update'] as const) {
      if (g.actions.includes(action) && (!covers(action, g.write) || (res.draftAndPublish && r.publish === undefined))) return false;
    }
    if (g.actions.includes('delete')) {
      if (r.delete === undefined) return false;
      if (res.deleteMode === 'archive' && res.draftAndPublish && r.publish === undefined) return false;
    }
    return true;
  };

  test('a new key is allowed exactly when the role covers it; what is refused names only what the role lacks', () => {
    fc.assert(
      fc.property(role, grant, fc.boolean(), resource, (r, g, preview, overrides) => {
        const res = events(overrides);
        const needs = needsOf({ resources: { 'native:events': g }, preview }, () => res, pathsOf);
        const allows = allowsOf(r);
        const judgement = judge(null, needs, allows);
        expect(judgement.ok).toBe(mayHold(r, g, preview, res));
        if (!judgement.ok) {
          expect(judgement.held).toEqual([]);
          for (const need of judgement.missing) expect(allows(need.action, need.uid, need.field)).toBe(false);
          expect(issuesOf(judgement.missing).length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  test('taking anything away is always allowed; adding anything to a key the role cannot cover is refused', () => {
    fc.assert(
      fc.property(role, grant, grant, fc.boolean(), resource, (r, g, h, preview, overrides) => {
        const res = events(overrides);
        const allows = allowsOf(r);
        const needsOfGrant = (x: ResourceGrant, p: boolean) =>
          needsOf({ resources: { 'native:events': x }, preview: p }, () => res, pathsOf);
        const narrower: ResourceGrant = {
          actions: g.actions.filter((action) => h.actions.includes(action)),
          read: g.read.filter((key) => h.read.includes(key)),
          write: g.write.filter((key) => h.write.includes(key)),
        };
        const before = needsOfGrant(g, preview);
        expect(judge(before, needsOfGrant(narrower, false), allows)).toEqual({ ok: true });
        const wider: ResourceGrant = {
          actions: [...new Set([...g.actions, ...h.actions])],
          read: [...new Set([...g.read, ...h.read])],
          write: [...new Set([...g.write, ...h.write])],
        };
        const after = needsOfGrant(wider, preview);
        const adds = after.length > before.length;
        if (adds && !mayHold(r, wider, preview, res)) expect(judge(before, after, allows).ok).toBe(false);
        if (mayHold(r, wider, preview, res)) expect(judge(before, after, allows)).toEqual({ ok: true });
      }),
      { numRuns: 500 },
    );
  });
});
