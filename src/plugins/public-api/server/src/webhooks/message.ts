/**
 * The message a webhook sends (contract section 16), as Standard Webhooks define it: a JSON body
 * `{ "type", "timestamp", "data" }`, where `data` is the record as the subscribing key reads it (the
 * resource object of `GET /{resource}/{id}`, readable fields only) or, for a removal,
 * `{ "type", "id", "meta": { "deletedAt" } }`; and the headers `webhook-id` (the event's id, the same on
 * every attempt: receivers deduplicate by it), `webhook-timestamp` (seconds, this attempt) and
 * `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, computed by the reference library;
 * two, space-separated, while a rotated secret's predecessor is still honoured).
 */
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from './events';

export type Removal = { type: string; id: string; meta: { deletedAt: string } };

export type EventBody = { type: WebhookEvent; timestamp: string; data: unknown };

export const removalOf = (type: string, id: string, at: Date): Removal => ({ type, id, meta: { deletedAt: at.toISOString() } });

export const eventBody = (event: WebhookEvent, occurredAt: Date, data: unknown): string =>
  JSON.stringify({ type: event, timestamp: occurredAt.toISOString(), data } satisfies EventBody);

/** The event id of the journal entry `seq` for endpoint `endpointId`: one event per entry and endpoint. */
export const eventIdOf = (endpointId: number, seq: number | string): string => `msg_${endpointId}_${seq}`;

export type SignedHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** The Standard Webhooks headers of one attempt, signed with each of `secrets` (`whsec_...`). */
export const signedHeaders = (eventId: string, body: string, secrets: readonly string[], at: Date): SignedHeaders => {
  const seconds = Math.floor(at.getTime() / 1000);
  const signatures = secrets.map((secret) => new Webhook(secret).sign(eventId, new Date(seconds * 1000), body));
  return { 'webhook-id': eventId, 'webhook-timestamp': String(seconds), 'webhook-signature': signatures.join(' ') };
};
