/**
 * Whether a change concerns a key, and what it may tell the key (pure; contract sections 1 and 16, issue 33).
 *
 * A change reaches a key (a webhook event, a sync delta item) only when what the key reads has changed:
 *
 * - A record the key reads now, changed in its own rows: sent as it reads it now (its `meta.updatedAt`
 *   changed, at least).
 * - A record the key reads now that only *shows* the changed one, through one of its fields (`via`: a
 *   reference, a media field, or one inside a component): sent only when the key reads that field (and,
 *   inside a component, the component's field that holds it).
 * - A record the key cannot read now: a removal, and only when the key could read it before the change:
 *   its own rows changed (a record that only shows another has the same rows, website and publication as
 *   before, so a key that cannot read it now never could), it had a published row then (not a `published`
 *   change), and for a resource of a website, that row belonged to the website (`scope`: the websites, by
 *   row id, as `,1,3,`). Another website's records never reach a key, not even as an id in a removal.
 *
 * Grants are the key's current ones: a grant change sends its own removals (services/webhooks/grant-removals.ts)
 * and ends sync tokens (410 `sync_grants_changed`).
 */
import type { Projection } from '../grants/projection';
import type { ChangeKind, WebhookEvent } from './events';

/**
 * The `via` of an entry of a record that shows a changed one from inside a component (at any depth): the
 * record's component or dynamic zone field, the component holding the reference or file, and its field.
 * A reference or file held by the record itself has its field's name alone.
 */
export const viaOf = (topField: string, holderUid: string, field: string): string => `${topField}/${holderUid}/${field}`;

/**
 * Every `via` whose change a key reading `projection` sees: its readable fields, and each field of a
 * component it reads, under each of its readable component and dynamic zone fields (a superset of the paths the schema has is
 * harmless: a `via` is only ever one of those). Relations whose target the key may not read are not
 * readable (grants/projection.ts), in components too.
 */
export const shownVias = (projection: Pick<Projection, 'readable' | 'components'>): Set<string> => {
  const vias = new Set(projection.readable.map((field) => field.key));
  const tops = projection.readable.filter((field) => COMPONENT_TYPES.has(field.type)).map((field) => field.key);
  for (const [uid, component] of projection.components)
    for (const field of component.readable) for (const top of tops) vias.add(viaOf(top, uid, field.key));
  return vias;
};

const COMPONENT_TYPES: ReadonlySet<string> = new Set(['component', 'components', 'dynamiczone']);

/** The `scope` column's value for the websites (row ids) a record's published row belongs to. */
export const scopeValue = (websiteIds: readonly number[]): string => {
  const ids = [...new Set(websiteIds)].sort((a, b) => a - b);
  return ids.length === 0 ? ',' : `,${ids.join(',')},`;
};

/** Whether a `scope` value names website `websiteId`. A null scope (no record of one) names none. */
export const scopeIncludes = (scope: string | null, websiteId: number): boolean => scope !== null && scope.includes(`,${websiteId},`);

/** What an entry says of its record's change. */
export type ChangeFacts = { kind: ChangeKind; via: string | null; scope: string | null };

/** A resource as this decision needs it: its website (row id), or null for a resource of no website. */
export type Audience = { websiteId: number | null };

/** Whether a key reading `audience` could read the record before the change `facts` describes. */
export const readableBefore = (facts: ChangeFacts, audience: Audience): boolean =>
  facts.via === null && facts.kind !== 'published' && (audience.websiteId === null || scopeIncludes(facts.scope, audience.websiteId));

/**
 * The event a key receives for a change, or null for none: `readableNow` whether it reads the record now,
 * `readsVia` whether it reads the field the change came through (ignored for own changes).
 */
export const eventForChange = (
  facts: ChangeFacts,
  audience: Audience,
  readableNow: boolean,
  readsVia: boolean,
): { event: WebhookEvent; removal: boolean } | null => {
  const removalKind = facts.kind === 'unpublished' || facts.kind === 'deleted';
  if (readableNow && !removalKind) {
    if (facts.via !== null && !readsVia) return null;
    return { event: `record.${facts.kind}`, removal: false };
  }
  if (!readableBefore(facts, audience)) return null;
  return { event: facts.kind === 'deleted' ? 'record.deleted' : 'record.unpublished', removal: true };
};

/**
 * Whether a record a key cannot read now was readable to it at some moment since a sync token, from the
 * states its own changes since then said it was in before them (services/journal `priorStates`): one of
 * them of the resource's website (for a website's resource) and, for a localized resource, of a locale the
 * key reads it in (`locales`; null: any).
 */
export const readableSince = (
  states: readonly { locale: string | null; scope: string | null }[],
  audience: Audience,
  locales: readonly string[] | null,
): boolean =>
  states.some(
    (state) =>
      (audience.websiteId === null || scopeIncludes(state.scope, audience.websiteId)) &&
      (locales === null || state.locale === null || locales.includes(state.locale)),
  );
