/**
 * Relation fields: `relation` (to one record) and `relations` (to many), to records of another exposed
 * resource. Reads hand them references (or the records `include` expanded); writes name records by id
 * or slug, resolved by the writes service. Pure.
 */
import { echo } from '../../values/echo';
import type { StrapiAttribute } from '../../registry/types';
import type { Schema } from '../../openapi/types';
import type { LinkCodec, RelationRef, Violation, WriteVerdict } from '../codec';
import { accept, describe, isObject, judgeItems, memberPointer, refuse, violation } from '../judge';

/**
 * The most references a to-many list shows in one record (contract section 13). A longer list is cut to
 * its first references in the relation's order, and the record's `meta.truncated` names the field.
 */
export const REFERENCE_LIST_CAP = 100;

/** The references a record shows of a to-many list that may hold one past the cap. */
export const shownReferences = <T>(items: readonly T[]): T[] => items.slice(0, REFERENCE_LIST_CAP);

/** Whether a record shows only part of a to-many list. */
export const isCut = (items: readonly unknown[] | undefined): boolean => (items?.length ?? 0) > REFERENCE_LIST_CAP;

const TO_ONE = new Set(['oneToOne', 'manyToOne']);
const TO_MANY = new Set(['oneToMany', 'manyToMany']);

/** Relations to the admin's own content types (users, roles) are never exposed. */
const linksContent = (attribute: StrapiAttribute): boolean =>
  attribute.type === 'relation' && attribute.target !== undefined && attribute.target !== '' && !attribute.target.startsWith('admin::');

const relationRef = (key: string, target: string, pointer: string, raw: unknown): RelationRef | Violation => {
  const shape = `'${key}' takes references to ${target} records: an id or slug as a string, or an object with \`id\` or \`slug\`.`;
  if (typeof raw === 'string') return raw === '' ? violation(pointer, shape) : { by: 'either', value: raw, pointer };
  if (!isObject(raw)) return violation(pointer, shape);
  for (const member of ['collection', 'type'] as const) {
    if (raw[member] !== undefined && raw[member] !== target) {
      return violation(
        `${pointer}/${member}`,
        `'${key}' refers to ${target} records, not to ${typeof raw[member] === 'string' ? echo(raw[member] as string) : describe(raw[member])}.`,
      );
    }
  }
  const id = raw.id;
  const slug = raw.slug;
  const idOk = typeof id === 'string' && id !== '';
  const slugOk = typeof slug === 'string' && slug !== '';
  if (id !== undefined && !idOk) return violation(`${pointer}/id`, 'An `id` is a non-empty string.');
  // Reads show `slug: null` for records without one; that names nothing, so the id decides.
  if (slug !== undefined && slug !== null && !slugOk) return violation(`${pointer}/slug`, 'A `slug` is a non-empty string.');
  if (idOk) return { by: 'id', value: id as string, ...(slugOk ? { alsoSlug: slug as string } : {}), pointer };
  if (slugOk) return { by: 'slug', value: slug as string, pointer };
  return violation(pointer, shape);
};

const isRelationRef = (value: RelationRef | Violation): value is RelationRef => 'by' in value;

/**
 * The most references one to-many value of a write may name (a whole list, or `add` and `remove`
 * together): what one write resolves and links stays bounded, and within what one SQL statement may bind.
 * A longer list is written in several changes.
 */
export const MAX_REFERENCES_PER_WRITE = 1000;

const tooMany = (key: string, pointer: string, count: number): Violation =>
  violation(
    pointer,
    `'${key}' names ${count} references; one write takes at most ${MAX_REFERENCES_PER_WRITE}. Send the rest in further writes, as changes: { "add": [...] }.`,
  );

/** The members of a change of a to-many list: `{ "add": [...], "remove": [...] }`. */
export const LIST_CHANGE_MEMBERS = ['add', 'remove'] as const;

/**
 * `{ "add": [...], "remove": [...] }` (either or both): references to link and to unlink, each judged as
 * an item of a plain list is, pointed at as `<field>/add/<n>`.
 */
const parseListChange = (key: string, target: string, pointer: string, raw: Record<string, unknown>): WriteVerdict => {
  const named = [raw.add, raw.remove].reduce<number>((sum, items) => sum + (Array.isArray(items) ? items.length : 0), 0);
  if (named > MAX_REFERENCES_PER_WRITE) return refuse(tooMany(key, pointer, named));
  const violations: Violation[] = [];
  for (const member of Object.keys(raw)) {
    if (!(LIST_CHANGE_MEMBERS as readonly string[]).includes(member)) {
      violations.push(violation(memberPointer(pointer, member), `A change of '${key}' takes \`add\` and \`remove\`, not ${echo(member)}.`));
    }
  }
  if (!LIST_CHANGE_MEMBERS.some((member) => Object.hasOwn(raw, member))) {
    violations.push(
      violation(pointer, `A change of '${key}' takes \`add\`, \`remove\` or both: arrays of references to ${target} records.`),
    );
  }
  const lists: Record<(typeof LIST_CHANGE_MEMBERS)[number], RelationRef[]> = { add: [], remove: [] };
  for (const member of LIST_CHANGE_MEMBERS) {
    if (!Object.hasOwn(raw, member)) continue;
    const items = raw[member];
    const itemsPointer = `${pointer}/${member}`;
    if (!Array.isArray(items)) {
      violations.push(violation(itemsPointer, `\`${member}\` takes an array of references to ${target} records, not ${describe(items)}.`));
      continue;
    }
    const judged = judgeItems(items, itemsPointer, (item, itemPointer) => relationRef(key, target, itemPointer, item));
    if (judged.ok) lists[member] = judged.items;
    else violations.push(...judged.violations);
  }
  return violations.length ? refuse(...violations) : accept({ kind: 'relationChanges', ...lists });
};

const relationCodec = (type: 'relation' | 'relations', many: boolean): LinkCodec => ({
  type,
  storage: 'relation',
  cardinality: many ? 'many' : 'one',
  scalar: false,
  accepts: (attribute) => linksContent(attribute) && (many ? TO_MANY : TO_ONE).has(attribute.relation ?? ''),
  details: (attribute) => ({ target: attribute.target }),
  serialize: (items) => (many ? items : (items[0] ?? null)),
  // A related record may be unpublished or out of scope: a to-one relation is null then.
  readSchema: (field, kit) =>
    many
      ? { schema: { type: 'array', items: kit.relationItem(field) }, nullable: 'never' }
      : { schema: kit.relationItem(field), nullable: 'always' },
  parseWrite: (raw, field, { pointer, target }) => {
    if (raw === null) return accept({ kind: 'relation', refs: [] });
    if (!many) {
      const ref = relationRef(field.key, target, pointer, raw);
      return isRelationRef(ref) ? accept({ kind: 'relation', refs: [ref] }) : refuse(ref);
    }
    if (isObject(raw)) return parseListChange(field.key, target, pointer, raw);
    if (!Array.isArray(raw)) {
      return refuse(
        violation(pointer, `'${field.key}' takes an array of references, or \`{ "add": [...], "remove": [...] }\`, not ${describe(raw)}.`),
      );
    }
    if (raw.length > MAX_REFERENCES_PER_WRITE) return refuse(tooMany(field.key, pointer, raw.length));
    const judged = judgeItems(raw, pointer, (item, itemPointer) => relationRef(field.key, target, itemPointer, item));
    return judged.ok ? accept({ kind: 'relation', refs: judged.items }) : refuse(...judged.violations);
  },
  writeSchema: (_field, kit, { action }) => {
    if (!many) return { schema: kit.relationInput(), nullable: 'unless-required' };
    const list: Schema = {
      type: ['array', 'null'],
      items: kit.relationInput(),
      description: 'The whole list, in order; null is the empty list.',
    };
    // A new record has no list to change: creates take whole lists only.
    return action === 'create'
      ? { schema: list, nullable: 'never' }
      : { schema: { oneOf: [list, kit.relationChanges()] }, nullable: 'never' };
  },
  filter: () => ({ type }),
  sortKind: 'text',
  sortable: () => false,
});

export const relation = relationCodec('relation', false);
export const relations = relationCodec('relations', true);
