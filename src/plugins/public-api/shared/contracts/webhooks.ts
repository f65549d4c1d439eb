/**
 * Admin routes for a key's webhook endpoints and their delivery log (contract section 16). An endpoint's
 * signing secret appears exactly once: in the response that created or rotated it.
 */

export const WEBHOOK_EVENT_NAMES = ['record.published', 'record.updated', 'record.unpublished', 'record.deleted'] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

export type AdminWebhookEndpoint = {
  id: number;
  /** The key's id (the `id` of AdminKey). */
  keyId: number;
  url: string;
  description: string | null;
  events: WebhookEventName[];
  /** Resource ids (`native:events`); empty: every resource the key may read. */
  resources: string[];
  /** The last four characters of the signing secret, to tell secrets apart. */
  secretHint: string;
  /** Until when the secret before the last rotation still signs too (epoch ms), or null. */
  previousSecretUntil: number | null;
  enabled: boolean;
  /** Why the endpoint was disabled (by an admin, or after about 24 h of failed deliveries), or null. */
  disabledReason: string | null;
  disabledAt: number | null;
  /** Since when every delivery has failed (epoch ms), or null when the last one succeeded. */
  failingSince: number | null;
  createdAt: string;
  updatedAt: string;
};

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

export type AdminWebhookDelivery = {
  id: number;
  /** The `webhook-id` header: the same on every attempt and on a redelivery. */
  eventId: string;
  event: WebhookEventName;
  resource: string | null;
  recordId: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** The last attempt's answer status, or null (no answer: refused, unreachable, timed out). */
  responseStatus: number | null;
  durationMs: number | null;
  lastError: string | null;
  /** When the change happened, the first attempt, the next one (pending) and the end (epoch ms). */
  occurredAt: number;
  firstAttemptAt: number | null;
  nextAttemptAt: number | null;
  finishedAt: number | null;
  /** The delivery this one sends again (Redeliver), or null. */
  redeliveryOf: number | null;
  createdAt: string;
};

export type WebhookEndpointInput = {
  url: string;
  description?: string | null;
  events?: WebhookEventName[];
  resources?: string[];
  enabled?: boolean;
};

export declare namespace ListWebhookEndpoints {
  interface Response {
    data: AdminWebhookEndpoint[];
  }
}

export declare namespace CreateWebhookEndpoint {
  interface Request {
    body: WebhookEndpointInput;
  }
  interface Response {
    data: AdminWebhookEndpoint;
    /** The signing secret (`whsec_...`), shown once. */
    meta: { secret: string };
  }
}

export declare namespace UpdateWebhookEndpoint {
  interface Request {
    body: Partial<WebhookEndpointInput>;
  }
  interface Response {
    data: AdminWebhookEndpoint;
  }
}

export declare namespace RotateWebhookSecret {
  interface Response {
    data: AdminWebhookEndpoint;
    /** The new signing secret, shown once; the old one keeps signing beside it for 24 hours. */
    meta: { secret: string };
  }
}

export declare namespace DeleteWebhookEndpoint {
  interface Response {
    data: AdminWebhookEndpoint;
  }
}

export declare namespace ListWebhookDeliveries {
  interface Response {
    data: AdminWebhookDelivery[];
    /** Pass as `before` for older deliveries; null on the last page. */
    meta: { next: number | null };
  }
}

export declare namespace RedeliverWebhook {
  interface Response {
    data: AdminWebhookDelivery;
  }
}
