/**
 * The events a webhook endpoint subscribes to (contract section 16), one per kind of change in the
 * change journal. What each change means for a key (the record, a removal, or nothing): webhooks/visibility.ts.
 */
import { WEBHOOK_EVENT_NAMES, type WebhookEventName } from '../../../shared/contracts/webhooks';

export const WEBHOOK_EVENTS = WEBHOOK_EVENT_NAMES;

export type WebhookEvent = WebhookEventName;

/** A kind of change as the journal records it. */
export type ChangeKind = 'published' | 'updated' | 'unpublished' | 'deleted';

export const eventOfKind = (kind: ChangeKind): WebhookEvent => `record.${kind}`;

export const isWebhookEvent = (value: unknown): value is WebhookEvent =>
  typeof value === 'string' && (WEBHOOK_EVENTS as readonly string[]).includes(value);
