/**
 * `{ "add": [...], "remove": [...] }` for to-many relation fields: how the relation codec judges it
 * (fields/types/relation.ts) and what a resolved change links and unlinks (write/list-change.ts); and the
 * pure parts of the cut of long lists on reads (read/first-links.ts, the index of services/indexes.ts).
 */
import fc from 'fast-check';
import type { Field } from '../../src/plugins/public-api/server/src/registry/types';
import type { RelationRef } from '../../src/plugins/public-api/server/src/fields/codec';
import { relations } from '../../src/plugins/public-api/server/src/fields/types/relation';
import { planListChange, type ListChange, type NamedTarget } from '../../src/plugins/public-api/server/src/write/list-change';
import { firstPerDocument, shortOwners } from '../../src/plugins/public-api/server/src/read/first-links';
import { linkListIndex, linkListIndexName } from '../../src/plugins/public-api/server/src/services/indexes';
import { createIndexStatement } from '../../src/plugins/public-api/server/src/database/ensure-index';
import { identifierQuoter } from '../../src/plugins/public-api/server/src/database/identifiers';

const FIELD = { key: 'events', type: 'relations', label: 'Events', required: false, localized: false } as unknown as Field;
const POINTER = '/data/attributes/events';
const parse = (raw: unknown) => relations.parseWrite(raw, FIELD, { pointer: POINTER, target: 'events' });

/** The value a JSON pointer names in the request document, or `undefined` when it names nothing. */
const at = (document: unknown, pointer: string): unknown => {
  let node: unknown = document;
  for (const token of pointer.split('/').slice(1)) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node as object, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
};

/** JSON values only: parsed request bodies hold no `undefined`. */
const reference = fc.oneof(
  fc.string(),
  fc.record({ id: fc.oneof(fc.string(), fc.integer(), fc.constant(null)) }, { requiredKeys: [] }),
  fc.record({ slug: fc.oneof(fc.string(), fc.constant(null)), collection: fc.constantFrom('events', 'buildings') }, { requiredKeys: [] }),
  fc.jsonValue(),
);
const change = fc.dictionary(
  fc.oneof(fc.constantFrom('add', 'remove'), fc.string()),
  fc.oneof(fc.array(reference, { maxLength: 6 }), fc.jsonValue()),
  {
    maxKeys: 3,
  },
);

describe('the relation codec judging a change', () => {
  test('never throws; every violation points at a value of the request, inside the field', () => {
    fc.assert(
      fc.property(fc.oneof(change, fc.jsonValue()), (raw) => {
        const verdict = parse(raw);
        const document = { data: { attributes: { events: raw } } };
        if (verdict.ok) {
          expect(['relation', 'relationChanges']).toContain(verdict.planned.kind);
          return;
        }
        expect(verdict.violations.length).toBeGreaterThan(0);
        for (const violation of verdict.violations) {
          expect(violation.pointer.startsWith(POINTER)).toBe(true);
          expect(at(document, violation.pointer)).not.toBeUndefined();
          expect(typeof violation.detail).toBe('string');
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('a well-formed change keeps its references in order, each pointed at in add or remove', () => {
    const slug = fc.string({ minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(
        fc.option(fc.array(slug, { maxLength: 8 }), { nil: undefined }),
        fc.option(fc.array(slug, { maxLength: 8 }), { nil: undefined }),
        (add, remove) => {
          fc.pre(add !== undefined || remove !== undefined);
          const raw = { ...(add ? { add } : {}), ...(remove ? { remove: remove.map((id) => ({ id })) } : {}) };
          const verdict = parse(raw);
          expect(verdict.ok).toBe(true);
          if (!verdict.ok || verdict.planned.kind !== 'relationChanges') throw new Error('not a change');
          const expected = (values: string[] | undefined, member: string, by: RelationRef['by']) =>
            (values ?? []).map((value, index) => ({ by, value, pointer: `${POINTER}/${member}/${index}` }));
          expect(verdict.planned.add).toEqual(expected(add, 'add', 'either'));
          expect(verdict.planned.remove).toEqual(expected(remove, 'remove', 'id'));
        },
      ),
    );
  });

  test('a plain list and null stay whole lists', () => {
    expect(parse(['a', { id: 'b' }])).toMatchObject({ ok: true, planned: { kind: 'relation' } });
    expect(parse(null)).toEqual({ ok: true, planned: { kind: 'relation', refs: [] } });
    expect(parse({})).toEqual({ ok: false, violations: [expect.objectContaining({ pointer: POINTER })] });
  });
});

/** How Strapi applies the value (`disconnect`, then `connect` appended at the end) to the stored list. */
const applied = (stored: readonly string[], { connect, disconnect }: ListChange): string[] => [
  ...stored.filter((documentId) => !disconnect.includes(documentId)),
  ...connect,
];

describe('planListChange', () => {
  const id = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
  const named = (ids: string[], member: string): NamedTarget[] =>
    ids.map((documentId, index) => ({ documentId, pointer: `/${member}/${index}` }));

  test('the list becomes (stored ∪ add) \\ remove in order, or the change is refused where it names a record twice', () => {
    fc.assert(
      fc.property(fc.uniqueArray(id), fc.array(id, { maxLength: 6 }), fc.array(id, { maxLength: 6 }), (stored, add, remove) => {
        // Only the links the change names are known, as the writes service looks them up.
        const linked = new Set(stored.filter((documentId) => add.includes(documentId) || remove.includes(documentId)));
        const result = planListChange(linked, named(add, 'add'), named(remove, 'remove'), 'events');
        const repeats = (ids: string[], member: string) =>
          ids.flatMap((value, index) => (ids.indexOf(value) < index ? [`/${member}/${index}`] : []));
        const both = remove.flatMap((value, index) => (add.includes(value) && remove.indexOf(value) === index ? [`/remove/${index}`] : []));
        const refused = [...repeats(add, 'add'), ...repeats(remove, 'remove'), ...both];
        expect(result.problems.map((problem) => problem.pointer).sort()).toEqual(refused.sort());
        if (refused.length) return;
        const expected = [...new Set([...stored, ...add])].filter((documentId) => !remove.includes(documentId));
        expect(applied(stored, result)).toEqual(expected);
        // A no-op writes nothing.
        if (expected.length === stored.length && expected.every((value, index) => value === stored[index])) {
          expect(result).toEqual({ connect: [], disconnect: [], problems: [] });
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the cut of reference lists (read/first-links.ts)', () => {
  const CAP = 5;
  /** Rows as the cut by links returns them: by owner, in order, `cap` links at most per owner. */
  const rowsOf = (lists: Map<number, string[]>) =>
    [...lists].flatMap(([owner, documents]) => documents.slice(0, CAP).map((documentId) => ({ owner, documentId })));

  test('each document is kept at its first link; an owner is short exactly when its cut links repeat a document', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.integer({ min: 1, max: 9 }).map(String),
          fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { maxLength: 9 }),
        ),
        (raw) => {
          const lists = new Map(Object.entries(raw).map(([owner, documents]) => [Number(owner), documents]));
          const rows = rowsOf(lists);
          const firsts = firstPerDocument(rows);
          for (const [owner, documents] of lists) {
            const cut = documents.slice(0, CAP);
            expect((firsts.get(owner) ?? []).map((row) => row.documentId)).toEqual([...new Set(cut)]);
          }
          const short = shortOwners(rows, firsts, CAP);
          const expected = [...lists]
            .filter(([, documents]) => documents.length >= CAP && new Set(documents.slice(0, CAP)).size < CAP)
            .map(([owner]) => owner);
          expect(short.sort()).toEqual(expected.sort());
        },
      ),
    );
  });
});

describe('the index of a relation list', () => {
  test('one per owner column, and a name PostgreSQL keeps whole', () => {
    const join = { table: 'events_venue_lnk', ownerColumn: 'building_id', targetColumn: 'event_id', orderColumn: 'event_ord' };
    expect(linkListIndexName(join)).toBe('events_venue_lnk_pda_building_id');
    expect(linkListIndexName({ ...join, ownerColumn: 'event_id' })).not.toBe(linkListIndexName(join));
    const quote = identifierQuoter('postgres');
    expect(createIndexStatement('postgres', linkListIndex(join, quote))).toBe(
      'CREATE INDEX IF NOT EXISTS "events_venue_lnk_pda_building_id" ON "events_venue_lnk" ("building_id", "event_ord", "id")',
    );
    expect(createIndexStatement('postgres', linkListIndex({ ...join, orderColumn: undefined }, quote))).toContain('("building_id", "id")');
    // MySQL 8 has no CREATE INDEX IF NOT EXISTS (database/ensure-index.ts looks the index up first) and reads backticks.
    expect(createIndexStatement('mysql', linkListIndex(join, identifierQuoter('mysql')))).toBe(
      'CREATE INDEX `events_venue_lnk_pda_building_id` ON `events_venue_lnk` (`building_id`, `event_ord`, `id`)',
    );
    const long = { ...join, table: `${'x'.repeat(60)}_lnk` };
    expect(Buffer.byteLength(linkListIndexName(long))).toBeLessThanOrEqual(63);
    expect(linkListIndexName(long)).not.toBe(linkListIndexName({ ...long, ownerColumn: 'other_id' }));
  });
});
