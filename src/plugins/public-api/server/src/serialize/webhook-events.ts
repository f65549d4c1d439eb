/**
 * What a batch of journal entries means to one webhook endpoint (contract section 16): for each entry, the
 * record as the endpoint's key reads it now (serialize/current-records.ts: the read path, one read per
 * resource, locale and batch), or a removal `{ type, id, meta: { deletedAt, resource } }` when the key
 * cannot read it any more (unpublished, deleted, moved to another website), or nothing when what the key
 * reads did not change (webhooks/visibility.ts, issue 33): a change through a field the key does not read,
 * or a record the key could not read before the change and cannot now (another website's); then only the
 * events and resources the endpoint asked for.
 *
 * Which resources an entry concerns: those the key may read whose content type is the entry's (a CMS
 * collection type backs one resource per website). Entries of content types the key reads nothing of give
 * no event at all (the fan-out does not even read them: `contentTypes`). A removal names the first of them
 * the record was readable under before the change.
 */
import { configuredOrigin } from '../http/base-url';
import { allows } from '../grants/projection';
import type { ApiKey } from '../keys/types';
import type { Resource } from '../registry/types';
import type { Endpoint } from '../services/webhooks/endpoints';
import type { EventRenderer, KeyEvent } from '../services/webhooks/fan-out';
import type { JournalEntry } from '../services/journal';
import { API_BASE_PATH } from '../config';
import type { WebhookEvent } from '../webhooks/events';
import { eventForChange, shownVias } from '../webhooks/visibility';
import { removalOf } from '../webhooks/message';
import { getService } from '../utils/get-service';
import { readableProjection, renderCurrent } from './current-records';

const CMS_PREFIX = 'cms:';

/** Where asset URLs in payloads point: the configured public URL (`URL`), else this server on localhost. */
const baseUrl = (): string => {
  const origin =
    configuredOrigin(strapi.config.get('server.url')) ?? `http://localhost:${String(strapi.config.get('server.port') ?? 1337)}`;
  return `${origin}${API_BASE_PATH}`;
};

/** The resources the key may read and the endpoint subscribes to. */
const subscribed = async (key: ApiKey, endpoint: Endpoint): Promise<Resource[]> => {
  const registry = getService('resources');
  const needsWebsites = Object.keys(key.grants.resources).some((id) => id.startsWith(CMS_PREFIX));
  const resources = needsWebsites ? await registry.all() : registry.native();
  return resources.filter(
    (resource) => allows(key.grants, resource.id, 'read') && (endpoint.resources.length === 0 || endpoint.resources.includes(resource.id)),
  );
};

const render = async (key: ApiKey, endpoint: Endpoint, entries: readonly JournalEntry[]): Promise<KeyEvent[]> => {
  if (entries.length === 0) return [];
  const resources = await subscribed(key, endpoint);
  const byUid = new Map<string, Resource[]>();
  for (const resource of resources) byUid.set(resource.uid, [...(byUid.get(resource.uid) ?? []), resource]);
  const { defaultLocale } = await getService('locales').get();
  const url = baseUrl();

  // One render per resource and locale for the whole batch.
  const rendered = new Map<string, Map<string, unknown>>();
  const renderKey = (resource: Resource, locale: string) => `${resource.id}\u0000${locale}`;
  const wanted = new Map<string, { resource: Resource; locale: string; ids: Set<string> }>();
  for (const entry of entries) {
    for (const resource of byUid.get(entry.uid) ?? []) {
      const locale = entry.locale ?? defaultLocale;
      const name = renderKey(resource, locale);
      const slot = wanted.get(name) ?? { resource, locale, ids: new Set<string>() };
      slot.ids.add(entry.documentId);
      wanted.set(name, slot);
    }
  }
  for (const [name, { resource, locale, ids }] of wanted) {
    rendered.set(name, (await renderCurrent(key.grants, resource, [...ids], { baseUrl: url, language: locale })) as Map<string, unknown>);
  }

  // The fields each resource's records show this key, for changes that came through one of them.
  const shown = new Map<string, Promise<ReadonlySet<string>>>();
  const shownFields = (resource: Resource) => {
    let fields = shown.get(resource.id);
    if (!fields) {
      fields = readableProjection(key.grants, resource).then((readable) => (readable ? shownVias(readable.projection) : new Set<string>()));
      shown.set(resource.id, fields);
    }
    return fields;
  };

  const events: KeyEvent[] = [];
  for (const entry of entries) {
    const candidates = byUid.get(entry.uid) ?? [];
    if (candidates.length === 0) continue;
    const locale = entry.locale ?? defaultLocale;
    // Each resource the record could be read under decides for itself (webhooks/visibility.ts); a record
    // read now wins over a removal, and a resource the record was never readable under says nothing.
    let chosen: { resource: Resource; record: unknown; event: WebhookEvent; removal: boolean } | null = null;
    for (const resource of candidates) {
      const record = rendered.get(renderKey(resource, locale))?.get(entry.documentId) ?? null;
      const readsVia = entry.via === null || (await shownFields(resource)).has(entry.via);
      const decided = eventForChange(entry, { websiteId: resource.website?.id ?? null }, record !== null, readsVia);
      if (!decided) continue;
      if (!decided.removal) {
        chosen = { resource, record, ...decided };
        break;
      }
      chosen ??= { resource, record: null, ...decided };
    }
    if (!chosen || !endpoint.events.includes(chosen.event)) continue;
    const { resource, event } = chosen;
    if (!chosen.removal) {
      events.push({
        seq: entry.seq,
        event,
        resource: resource.id,
        recordId: entry.documentId,
        occurredAt: entry.occurredAt,
        data: chosen.record,
      });
      continue;
    }
    const gone = removalOf(resource.slug, entry.documentId, new Date(entry.occurredAt));
    events.push({
      seq: entry.seq,
      event,
      resource: resource.id,
      recordId: entry.documentId,
      occurredAt: entry.occurredAt,
      data: { ...gone, meta: { ...gone.meta, resource: resource.id } },
    });
  }
  return events;
};

/** The content types whose entries can mean anything to the endpoint: those of the resources it gets (the fan-out reads only these). */
const contentTypes = async (key: ApiKey, endpoint: Endpoint): Promise<string[]> => [
  ...new Set((await subscribed(key, endpoint)).map((resource) => resource.uid)),
];

export const renderWebhookEvents: EventRenderer = Object.assign(render, { contentTypes });
