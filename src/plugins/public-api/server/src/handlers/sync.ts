/**
 * GET /sync: the sync feed (contract section 16, docs/api.md "Sync feed").
 *
 * - Without `token`: a run over every record the key can read, resource by resource (in resource id
 *   order) and within each by id (keyset, `links.next` with a signed cursor), `limit` records a page. The
 *   run starts by taking the journal's horizon (services/journal): every change before it is in what the
 *   pages read, every change after it is in the next delta. The last page carries `links.sync` and
 *   `meta.syncToken`, a token at that horizon.
 * - With `token`: a delta run over the journal from the token's position to the horizon taken at the
 *   run's first page: each changed document once (its last change in the range), as the key reads it now,
 *   or a removal `{ type, id, meta: { deletedAt, resource } }` when the key cannot read it any more
 *   (unpublished, deleted, moved to another website, missing in the locale). Its last page carries the
 *   next token. No change is lost between two runs: the horizon is exact under concurrent writes.
 *
 * Every item names its resource in `meta.resource` (two websites may publish collections of one type
 * name). The token binds the key, the locale list and a fingerprint of what the key reads (resources
 * and their readable fields): after a grant change the token answers 410 `sync_grants_changed`, so the
 * client starts over rather than keeping records shaped by grants it no longer has.
 */
import { createHash } from 'node:crypto';
import { allows } from '../grants/projection';
import type { Projector } from '../grants/projector';
import type { Projection } from '../grants/projection';
import { apiError } from '../http/errors';
import { JSONAPI } from '../http/jsonapi';
import type { ApiRequest, ApiResponse, Handler } from '../http/request';
import { CMS_PREFIX, type Resource } from '../registry/types';
import { parseSyncQuery } from '../query/sync-query';
import {
  decodeSyncCursor,
  decodeSyncToken,
  encodeSyncCursor,
  encodeSyncToken,
  syncTime,
  type SyncBinding,
  type SyncCursor,
  type SyncPosition,
} from '../query/sync-token';
import { readableProjection, renderCurrent, renderPage, type RenderOptions } from '../serialize/current-records';
import type { RecordObject } from '../serialize/record';
import { getService } from '../utils/get-service';
import type { ContentTypeInterest, PriorState } from '../services/journal';
import { readableSince, shownVias } from '../webhooks/visibility';

type Readable = { resource: Resource; projection: Projection; projectionOf: Projector };

type SyncItem = RecordObject | { type: string; id: string; meta: { deletedAt: string; resource: string } };

/** Every resource the key may read, in resource id order. */
const readableResources = async (request: ApiRequest): Promise<Readable[]> => {
  const { grants } = request.key;
  const registry = getService('resources');
  const needsWebsites = Object.keys(grants.resources).some((id) => id.startsWith(CMS_PREFIX));
  const resources = (needsWebsites ? await registry.all() : registry.native())
    .filter((resource) => allows(grants, resource.id, 'read'))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const readable: Readable[] = [];
  for (const resource of resources) {
    const projected = await readableProjection(grants, resource);
    if (projected) readable.push({ resource, ...projected });
  }
  return readable;
};

/** What the key reads, as a hash: resources (and their website), readable fields, relation targets. */
const grantsFingerprint = (readable: readonly Readable[]): string => {
  const shape = readable.map(({ resource, projection }) => [
    resource.id,
    resource.website?.id ?? null,
    projection.readable.map((field) => field.key),
    [...projection.targets].map(([field, target]) => [field, target.id]),
  ]);
  return createHash('sha256').update(JSON.stringify(shape)).digest().subarray(0, 16).toString('base64url');
};

const withResource = (record: RecordObject, resource: Resource): RecordObject => ({
  ...record,
  meta: { ...record.meta, resource: resource.id } as RecordObject['meta'],
});

/** A removal; `deletedAt` is an ISO 8601 time, as in webhook payloads (webhooks/message.ts). */
const removal = (resource: Resource, id: string, deletedAt: number): SyncItem => ({
  type: resource.slug,
  id,
  meta: { deletedAt: new Date(deletedAt).toISOString(), resource: resource.id },
});

/**
 * The journal entries that concern the key, by content type (services/journal `latest`): its records' own
 * changes, and changes through a field it reads on some resource of that content type.
 */
const interestsOf = (readable: readonly Readable[]): ContentTypeInterest[] => {
  const via = new Map<string, Set<string>>();
  for (const { resource, projection } of readable) {
    const fields = via.get(resource.uid) ?? new Set<string>();
    for (const via of shownVias(projection)) fields.add(via);
    via.set(resource.uid, fields);
  }
  return [...via].map(([uid, fields]) => ({ uid, via: [...fields].sort() }));
};

const comparePositions = (a: SyncPosition, b: SyncPosition): number => a.txid - b.txid || a.seq - b.seq;

const cursorKey = () => getService('derived-keys').current().cursor;

/** `/sync` with the request's own parameters but `token` and `cursor`, then `extra`. */
const syncLink = (request: ApiRequest, extra: Record<string, string>): string => {
  const url = new URL(request.selfUrl);
  const params = new URLSearchParams(url.search);
  params.delete('token');
  params.delete('cursor');
  for (const [name, value] of Object.entries(extra)) params.append(name, value);
  url.search = params.toString();
  return url.toString();
};

type Page = { items: SyncItem[]; next: SyncCursor | null; position: SyncPosition; startedAt: number };

const answer = (request: ApiRequest, binding: SyncBinding, page: Page): ApiResponse => {
  const key = cursorKey();
  const links: Record<string, string> = { self: request.selfUrl };
  const meta: Record<string, unknown> = {};
  if (page.next) {
    const cursor = encodeSyncCursor(page.next, key);
    links.next = syncLink(request, { cursor });
    meta.page = { nextCursor: cursor };
  } else {
    const token = encodeSyncToken({ ...binding, position: page.position, issuedAt: page.startedAt }, key);
    links.sync = syncLink(request, { token });
    meta.syncToken = token;
  }
  // A sync answer depends on the journal at the moment it is read: no cache may keep it.
  return { kind: 'document', status: 200, noStore: true, document: { jsonapi: JSONAPI, links, meta, data: page.items } };
};

/** A page of an initial run: records of the resource the cursor names from its position on, then the next resources. */
const initialPage = async (
  readable: readonly Readable[],
  state: { start: SyncPosition; startedAt: number; resourceId: string | null; after: string | null },
  binding: SyncBinding,
  limit: number,
  options: RenderOptions,
  now: number,
): Promise<Page> => {
  const items: SyncItem[] = [];
  let index = state.resourceId === null ? 0 : readable.findIndex((entry) => entry.resource.id === state.resourceId);
  if (index < 0) index = readable.length;
  let after = state.after;
  while (index < readable.length && items.length < limit) {
    const entry = readable[index]!;
    const page = await renderPage(entry, after, limit - items.length, options);
    items.push(...page.records.map((record) => withResource(record, entry.resource)));
    if (page.hasMore) {
      after = page.last;
      break;
    }
    index += 1;
    after = null;
  }
  const next: SyncCursor | null =
    index < readable.length
      ? {
          ...binding,
          phase: 'initial',
          start: state.start,
          startedAt: state.startedAt,
          resourceId: readable[index]!.resource.id,
          after,
          issuedAt: now,
        }
      : null;
  return { items, next, position: state.start, startedAt: state.startedAt };
};

/** A page of a delta run: the next batch of changed documents in [from, to), each rendered now. */
const deltaPage = async (
  request: ApiRequest,
  readable: readonly Readable[],
  state: { from: SyncPosition; to: SyncPosition; startedAt: number },
  binding: SyncBinding,
  limit: number,
  options: RenderOptions,
  now: number,
): Promise<Page> => {
  const journal = getService('journal');
  const batch = await journal.latest(state.from, state.to, limit, interestsOf(readable));
  const changed = new Map<string, { id: string; at: number; via: string | null }[]>();
  for (const entry of batch.entries) {
    const list = changed.get(entry.uid) ?? [];
    list.push({ id: entry.documentId, at: entry.occurredAt, via: entry.via });
    changed.set(entry.uid, list);
  }
  const items: SyncItem[] = [];
  // What the own changes of records the key cannot read now said of them before, by content type: a
  // removal goes only to a key that could read the record at some moment since the token (issue 33).
  const prior = new Map<string, Map<string, PriorState[]>>();
  const priorOf = async (uid: string, ids: readonly string[]) => {
    // Per content type, each document asked once (two websites' resources of one type ask for different ones).
    const known = prior.get(uid) ?? new Map<string, PriorState[]>();
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length) {
      const states = await journal.priorStates(state.from, state.to, uid, missing);
      for (const id of missing) known.set(id, states.get(id) ?? []);
    }
    prior.set(uid, known);
    return known;
  };
  for (const { resource, projection } of readable) {
    // A record changed last through a field this resource's grant does not read (another website's grant
    // of the type does): sent only when one of its changes in the range is its own or through a field it reads.
    const shown = shownVias(projection);
    const all = changed.get(resource.uid) ?? [];
    const unshown = all.filter((document) => document.via !== null && !shown.has(document.via)).map((document) => document.id);
    const vias = unshown.length ? await journal.vias(state.from, state.to, resource.uid, unshown) : new Map<string, Set<string | null>>();
    const documents = all.filter(
      (document) =>
        document.via === null ||
        shown.has(document.via) ||
        [...(vias.get(document.id) ?? [])].some((via) => via === null || shown.has(via)),
    );
    if (!documents.length) continue;
    const rendered = await renderCurrent(
      request.key.grants,
      resource,
      documents.map((document) => document.id),
      options,
    );
    const unreadable = documents.filter((document) => !rendered.get(document.id)).map((document) => document.id);
    const states = unreadable.length ? await priorOf(resource.uid, unreadable) : new Map<string, PriorState[]>();
    const audience = { websiteId: resource.website?.id ?? null };
    const locales = resource.localized ? [options.language, ...(options.fallback ?? [])] : null;
    for (const document of documents) {
      const record = rendered.get(document.id);
      if (record) items.push(withResource(record, resource));
      else if (readableSince(states.get(document.id) ?? [], audience, locales)) items.push(removal(resource, document.id, document.at));
    }
  }
  const next: SyncCursor | null = batch.next
    ? { ...binding, phase: 'delta', from: batch.next, to: state.to, startedAt: state.startedAt, issuedAt: now }
    : null;
  return { items, next, position: state.to, startedAt: state.startedAt };
};

export const sync: Handler = async (request) => {
  const locales = await getService('locales').get();
  const parsed = parseSyncQuery(request.query, locales.codes);
  const readable = await readableResources(request);
  if (readable.length === 0)
    throw apiError(403, 'This key may read no resource, so it has nothing to sync.', { reason: 'action_not_granted' });
  const language = parsed.locales?.[0] ?? locales.defaultLocale;
  const fallback = parsed.locales?.slice(1) ?? [];
  const binding: SyncBinding = {
    keyId: request.key.keyId,
    grants: grantsFingerprint(readable),
    locale: [language, ...fallback].join(','),
  };
  const options: RenderOptions = { baseUrl: request.baseUrl, language, fallback };
  const now = Date.now();
  // What tokens and cursors say: the same sync state gives the same document, and so a 304 (sync-token.ts).
  const issuedAt = syncTime(now);
  const journal = getService('journal');

  if (parsed.cursor !== null) {
    const cursor = decodeSyncCursor(parsed.cursor, cursorKey(), binding, now);
    const page =
      cursor.phase === 'initial'
        ? await initialPage(readable, cursor, binding, parsed.limit, options, issuedAt)
        : await deltaPage(request, readable, cursor, binding, parsed.limit, options, issuedAt);
    return answer(request, binding, page);
  }
  if (parsed.token !== null) {
    const token = decodeSyncToken(parsed.token, cursorKey(), binding, now);
    const horizon = await journal.settledHorizon();
    // The horizon never moves back; should another instance's clock of it lag, the token's position stands.
    const to = comparePositions(horizon, token.position) < 0 ? token.position : horizon;
    return answer(
      request,
      binding,
      await deltaPage(request, readable, { from: token.position, to, startedAt: issuedAt }, binding, parsed.limit, options, issuedAt),
    );
  }
  // The horizon first: whatever commits after it is in the next delta, whatever before it in these pages.
  const start = await journal.settledHorizon();
  const state = { start, startedAt: issuedAt, resourceId: null, after: null };
  return answer(request, binding, await initialPage(readable, state, binding, parsed.limit, options, issuedAt));
};
