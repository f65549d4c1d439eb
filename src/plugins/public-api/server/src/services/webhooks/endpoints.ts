/**
 * A key's webhook endpoints (contract section 16): create, list, change, rotate the secret, delete.
 * Settings are checked by webhooks/endpoint-input.ts; the resources named must be ones the key may read
 * now (a later grant change is applied when events are made: a resource no longer readable sends nothing,
 * its records' changes become removals). The signing secret is returned by create and rotate only, and
 * stored sealed (webhooks/secret.ts).
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { AdminWebhookEndpoint } from '../../../../shared/contracts/webhooks';
import { pluginConfig } from '../../config';
import { webhookSettings } from '../../config/webhooks';
import { allows } from '../../grants/projection';
import type { ApiKey } from '../../keys/types';
import {
  MAX_ENDPOINTS_PER_KEY,
  normalizeSettings,
  parseCreate,
  parseUpdate,
  type EndpointIssue,
  type EndpointSettings,
} from '../../webhooks/endpoint-input';
import type { WebhookEvent } from '../../webhooks/events';
import { generateSecret, openSecret, sealSecret, secretHint } from '../../webhooks/secret';
import { getService } from '../../utils/get-service';

export const WEBHOOK_ENDPOINT_UID = 'plugin::public-api.webhook-endpoint';

/** How long the secret before a rotation keeps signing beside the new one. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60_000;

export type EndpointRow = {
  id: number;
  apiKey: number;
  url: string;
  description: string | null;
  events: unknown;
  resources: unknown;
  secretSealed: string;
  secretHint: string;
  previousSecretSealed: string | null;
  previousSecretUntil: string | number | null;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: string | number | null;
  positionTxid: string | number | null;
  positionSeq: string | number | null;
  failingSince: string | number | null;
  createdAt: string | Date;
  updatedAt: string | Date;
};

/** A subscription as the dispatcher uses it. */
export type Endpoint = {
  id: number;
  apiKey: number;
  url: string;
  events: WebhookEvent[];
  resources: string[];
  enabled: boolean;
  /** The journal position after the last entry fanned out to it; null until its first fan-out. */
  position: { txid: number; seq: number } | null;
  failingSince: number | null;
};

const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const strings = (value: unknown): string[] => {
  const list = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
};
const iso = (value: string | Date) => new Date(value).toISOString();

export const toAdminEndpoint = (row: EndpointRow): AdminWebhookEndpoint => ({
  id: row.id,
  keyId: row.apiKey,
  url: row.url,
  description: row.description ?? null,
  events: strings(row.events) as WebhookEvent[],
  resources: strings(row.resources),
  secretHint: row.secretHint,
  previousSecretUntil: numberOrNull(row.previousSecretUntil),
  enabled: Boolean(row.enabled),
  disabledReason: row.disabledReason ?? null,
  disabledAt: numberOrNull(row.disabledAt),
  failingSince: numberOrNull(row.failingSince),
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});

export const toEndpoint = (row: EndpointRow): Endpoint => ({
  id: row.id,
  apiKey: row.apiKey,
  url: row.url,
  events: strings(row.events) as WebhookEvent[],
  resources: strings(row.resources),
  enabled: Boolean(row.enabled),
  position:
    row.positionTxid === null || row.positionTxid === undefined || row.positionSeq === null || row.positionSeq === undefined
      ? null
      : { txid: Number(row.positionTxid), seq: Number(row.positionSeq) },
  failingSince: numberOrNull(row.failingSince),
});

const positionColumns = (position: { txid: number; seq: number }) => ({ positionTxid: position.txid, positionSeq: position.seq });

/** Thrown with every issue of a refused input; nothing has been written. */
export class EndpointValidationError extends errors.ValidationError {
  constructor(issues: EndpointIssue[]) {
    super(issues.map((issue) => issue.message).join('\n'), {
      errors: issues.map((issue) => ({ path: issue.path.map(String), message: issue.message, name: 'ValidationError' })),
    });
  }
}

/** Resources of the list that the key may not read now. */
const unreadable = (key: ApiKey, resources: readonly string[]): EndpointIssue[] =>
  resources.flatMap((resource, index) =>
    allows(key.grants, resource, 'read') ? [] : [{ path: ['resources', index], message: `The key may not read '${resource}'.` }],
  );

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => strapi.db.query(WEBHOOK_ENDPOINT_UID);
  const serverSecret = () => pluginConfig(strapi).keySecret;
  const urlRules = () => {
    const { allowHttpLoopback } = webhookSettings(strapi);
    return { allowHttpLoopback, allowLoopback: allowHttpLoopback };
  };

  const requireKey = async (keyId: string | number): Promise<ApiKey> => {
    const key = await getService('keys').findOne(keyId);
    if (!key) throw new errors.NotFoundError(`No key '${keyId}'.`);
    return key;
  };

  const requireRow = async (id: string | number): Promise<EndpointRow> => {
    const row = /^\d+$/.test(String(id)) ? ((await query().findOne({ where: { id: Number(id) } })) as EndpointRow | null) : null;
    if (!row) throw new errors.NotFoundError(`No webhook endpoint '${id}'.`);
    return row;
  };

  return {
    requireRow,

    async list(keyId: string | number): Promise<AdminWebhookEndpoint[]> {
      const key = await requireKey(keyId);
      const rows = (await query().findMany({ where: { apiKey: key.id }, orderBy: [{ id: 'asc' }] })) as EndpointRow[];
      return rows.map(toAdminEndpoint);
    },

    async findOne(id: string | number): Promise<AdminWebhookEndpoint> {
      return toAdminEndpoint(await requireRow(id));
    },

    async create(keyId: string | number, body: unknown): Promise<{ endpoint: AdminWebhookEndpoint; secret: string }> {
      const key = await requireKey(keyId);
      const parsed = parseCreate(body, urlRules());
      if (!parsed.ok) throw new EndpointValidationError(parsed.issues);
      const settings = normalizeSettings(parsed.value);
      const issues = unreadable(key, settings.resources);
      const existing = (await query().findMany({ where: { apiKey: key.id }, select: ['id'], limit: MAX_ENDPOINTS_PER_KEY })) as unknown[];
      if (existing.length >= MAX_ENDPOINTS_PER_KEY)
        issues.push({ path: [], message: `A key has at most ${MAX_ENDPOINTS_PER_KEY} webhook endpoints.` });
      if (issues.length) throw new EndpointValidationError(issues);
      const secret = generateSecret();
      const row = (await query().create({
        data: {
          apiKey: key.id,
          url: settings.url,
          description: settings.description,
          events: settings.events,
          resources: settings.resources,
          secretSealed: sealSecret(serverSecret(), secret),
          secretHint: secretHint(secret),
          enabled: settings.enabled,
          // It is sent the changes from now on.
          ...positionColumns(await getService('webhook-fan-out').horizon()),
        },
      })) as EndpointRow;
      await getService('webhook-subscriptions').changed();
      return { endpoint: toAdminEndpoint(row), secret };
    },

    async update(id: string | number, body: unknown): Promise<AdminWebhookEndpoint> {
      const row = await requireRow(id);
      const parsed = parseUpdate(body, urlRules());
      if (!parsed.ok) throw new EndpointValidationError(parsed.issues);
      const settings: Partial<EndpointSettings> = normalizeSettings(parsed.value);
      if (settings.resources) {
        const issues = unreadable(await requireKey(row.apiKey), settings.resources);
        if (issues.length) throw new EndpointValidationError(issues);
      }
      const data: Record<string, unknown> = { ...settings };
      if (settings.enabled === true && !row.enabled) {
        // Turned on again: the failures before do not count, and the events it missed are sent (the journal kept them).
        Object.assign(data, { disabledReason: null, disabledAt: null, failingSince: null });
      }
      if (settings.enabled === false && row.enabled)
        Object.assign(data, { disabledReason: 'Disabled by an admin.', disabledAt: Date.now() });
      const updated = (await query().update({ where: { id: row.id }, data })) as EndpointRow;
      if (settings.resources || settings.enabled !== undefined) await getService('webhook-subscriptions').changed();
      return toAdminEndpoint(updated);
    },

    /** A new secret; the previous one keeps signing beside it for PREVIOUS_SECRET_MS, so receivers can switch. */
    async rotate(id: string | number, now = Date.now()): Promise<{ endpoint: AdminWebhookEndpoint; secret: string }> {
      const row = await requireRow(id);
      const secret = generateSecret();
      const updated = (await query().update({
        where: { id: row.id },
        data: {
          secretSealed: sealSecret(serverSecret(), secret),
          secretHint: secretHint(secret),
          previousSecretSealed: row.secretSealed,
          previousSecretUntil: now + PREVIOUS_SECRET_MS,
        },
      })) as EndpointRow;
      return { endpoint: toAdminEndpoint(updated), secret };
    },

    async remove(id: string | number): Promise<AdminWebhookEndpoint> {
      const row = await requireRow(id);
      await getService('webhook-deliveries').forgetEndpoint(row.id);
      await query().delete({ where: { id: row.id } });
      await getService('webhook-subscriptions').changed();
      return toAdminEndpoint(row);
    },

    /** The secrets that sign an attempt at `now`: the current one, and the previous one while it lasts. */
    signingSecrets(row: Pick<EndpointRow, 'secretSealed' | 'previousSecretSealed' | 'previousSecretUntil'>, now = Date.now()): string[] {
      const secrets: string[] = [];
      const current = openSecret(serverSecret(), row.secretSealed);
      if (current) secrets.push(current);
      const until = numberOrNull(row.previousSecretUntil);
      if (row.previousSecretSealed && until !== null && until > now) {
        const previous = openSecret(serverSecret(), row.previousSecretSealed);
        if (previous) secrets.push(previous);
      }
      return secrets;
    },

    /** Turns an endpoint off with the reason the admin shows (every instance's fan-out stops looking at it). */
    async disable(id: number, reason: string, now = Date.now()): Promise<void> {
      await query().update({ where: { id }, data: { enabled: false, disabledReason: reason, disabledAt: now } });
      await getService('webhook-subscriptions').changed();
    },
  };
};
