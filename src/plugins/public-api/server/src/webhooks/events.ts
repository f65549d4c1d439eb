/**
 * The events a webhook endpoint subscribes to (contract section 16), one per kind of change in the
 * change journal, and what each means for a key: a change it can read now is the record as it reads it;
 * a change it cannot (unpublished, deleted, or no longer readable by that key) is a removal.
 */
import { WEBHOOK_EVENT_NAMES, type WebhookEventName } from '../../../shared/contracts/webhooks';

export const WEBHOOK_EVENTS = WEBHOOK_EVENT_NAMES;

export type WebhookEvent = WebhookEventName;

/** A kind of change as the journal records it. */
export type ChangeKind = 'published' | 'updated' | 'unpublished' | 'deleted';

export const eventOfKind = (kind: ChangeKind): WebhookEvent => `record.${kind}`;

export const isWebhookEvent = (value: unknown): value is WebhookEvent =>
  typeof value === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(value);

/**
 * The event a key receives for a change. A published or updated record that the key cannot read now
 * (outside its grants, moved to another website, or changed again since and gone) has left its view:
 * `record.unpublished`, with a removal as payload.
 */
export const eventForKey = (kind: ChangeKind, readable: boolean): { event: WebhookEvent; removal: boolean } => {
  if (kind === 'unpublished' || kind === 'deleted') return { event: eventOfKind(kind), removal: true };
  return readable ? { event: eventOfKind(kind), removal: false } : { event: 'record.unpublished', removal: true };
};
