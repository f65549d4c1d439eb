/**
 * `{ "add": [...], "remove": [...] }` for to-many relation fields: how the relation codec judges it
 * (fields/types/relation.ts) and what a resolved change links and unlinks (write/list-change.ts).
 */
import fc from 'fast-check';
import type { Field } from '../../src/plugins/public-api/server/src/registry/types';
import type { RelationRef } from '../../src/plugins/public-api/server/src/fields/codec';
import { relations } from '../../src/plugins/public-api/server/src/fields/types/relation';
import { planListChange, type ListChange, type NamedTarget } from '../../src/plugins/public-api/server/src/write/list-change';

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
