/**
 * What a webhook endpoint's settings must be (contract section 16), checked before anything is stored:
 * the admin's form, the grants file and the command line all meet these rules.
 *
 * - `url`: https; plain http only to the loopback interface and only with the development flag. No user
 *   name or password in it (the secret signs; credentials in URLs end up in logs), no fragment. A literal
 *   address must be public (webhooks/addresses.ts); a host name must have a dot (a single label resolves
 *   through the server's search domains, i.e. to internal hosts). Names are resolved and checked again at
 *   every delivery, at connect time.
 * - `events`: a non-empty subset of the four; all four when absent on create.
 * - `resources`: resource ids the key may read (checked by the service against the key's grants); an empty
 *   list means every resource the key may read, now and later.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { ALLOW_HTTP_LOOPBACK_VARIABLE, LOOPBACK_FLAG_HINT } from '../config/webhooks';
import { isLoopbackHost, refusedAddress, type AddressRules } from './addresses';
import { WEBHOOK_EVENTS, type WebhookEvent } from './events';

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;
/** Endpoints one key may have: each costs a fan-out per change. */
export const MAX_ENDPOINTS_PER_KEY = 10;

export type EndpointIssue = { path: (string | number)[]; message: string };

export type EndpointSettings = {
  url: string;
  events: WebhookEvent[];
  resources: string[];
  description: string | null;
  enabled: boolean;
};

const eventSchema = z.enum(WEBHOOK_EVENTS, { error: `An event is one of ${WEBHOOK_EVENTS.join(', ')}.` });

const fields = {
  url: z.string({ error: 'The URL is text.' }),
  events: z.array(eventSchema, { error: 'The events are a list.' }),
  resources: z.array(z.string({ error: 'A resource is its id, e.g. native:events.' }), { error: 'The resources are a list.' }).max(200),
  description: z.string({ error: 'The description is text.' }).max(MAX_DESCRIPTION_LENGTH).nullable(),
  enabled: z.boolean({ error: 'Enabled is true or false.' }),
};

export const createEndpointSchema = z
  .object({
    ...fields,
    events: fields.events.optional(),
    resources: fields.resources.optional(),
    description: fields.description.optional(),
    enabled: fields.enabled.optional(),
  })
  .strict();
export const updateEndpointSchema = z.object(fields).partial().strict();

export type CreateEndpointInput = z.output<typeof createEndpointSchema>;
export type UpdateEndpointInput = z.output<typeof updateEndpointSchema>;

const issuesOf = (error: z.ZodError): EndpointIssue[] =>
  error.issues.map((issue) => ({
    path: issue.path.map((part) => (typeof part === 'number' ? part : String(part))),
    message:
      issue.code === 'unrecognized_keys' ? `Unknown member${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.` : issue.message,
  }));

export type UrlRules = AddressRules & {
  /** The development flag: plain http to the loopback interface, and loopback addresses, allowed. */
  allowHttpLoopback: boolean;
};

/** Why `text` may not be a webhook URL, or null; `rules.allowLoopback` follows the development flag. */
export const urlProblem = (text: string, rules: UrlRules): string | null => {
  if (text.length > MAX_URL_LENGTH) return `The URL is longer than ${MAX_URL_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `'${text.slice(0, 100)}' is not a URL.`;
  }
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol === 'http:') {
    if (!loopback)
      return `The URL must use https (plain http only to this machine, with ${ALLOW_HTTP_LOOPBACK_VARIABLE}=true in development).`;
    if (!rules.allowHttpLoopback) return `The URL must use https; plain http to this machine is refused: ${LOOPBACK_FLAG_HINT}.`;
  } else if (url.protocol !== 'https:') return 'The URL must use https.';
  if (url.username || url.password) return 'The URL may not carry a user name or password.';
  if (url.hash) return 'The URL may not have a fragment (#...).';
  if (loopback) return rules.allowHttpLoopback ? null : `The URL may not point at this machine (loopback): ${LOOPBACK_FLAG_HINT}.`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const refused = refusedAddress(host, { allowLoopback: rules.allowHttpLoopback });
    return refused ? `The URL's address is not public (${refused}).` : null;
  }
  if (!host.includes('.') || host.endsWith('.')) return 'The URL needs a fully qualified host name (with a dot, without a trailing one).';
  return null;
};

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: EndpointIssue[] };

/** Shape and meaning of a new endpoint's settings (not yet the key's grants: the service checks those). */
export const parseCreate = (body: unknown, rules: UrlRules): Parsed<EndpointSettings> => {
  const parsed = createEndpointSchema.safeParse(body ?? {});
  if (!parsed.success) return { ok: false, issues: issuesOf(parsed.error) };
  const settings: EndpointSettings = {
    url: parsed.data.url.trim(),
    events: parsed.data.events ?? [...WEBHOOK_EVENTS],
    resources: parsed.data.resources ?? [],
    description: parsed.data.description ?? null,
    enabled: parsed.data.enabled ?? true,
  };
  const issues = meaningIssues(settings);
  return issues.length ? { ok: false, issues } : { ok: true, value: settings };

  function meaningIssues(value: EndpointSettings): EndpointIssue[] {
    const found: EndpointIssue[] = [];
    const problem = urlProblem(value.url, rules);
    if (problem) found.push({ path: ['url'], message: problem });
    if (value.events.length === 0) found.push({ path: ['events'], message: 'Choose at least one event.' });
    return found;
  }
};

/** Shape and meaning of a change to an endpoint: only the members given are checked and changed. */
export const parseUpdate = (body: unknown, rules: UrlRules): Parsed<Partial<EndpointSettings>> => {
  const parsed = updateEndpointSchema.safeParse(body ?? {});
  if (!parsed.success) return { ok: false, issues: issuesOf(parsed.error) };
  const value: Partial<EndpointSettings> = { ...parsed.data };
  if (value.url !== undefined) value.url = value.url.trim();
  const issues: EndpointIssue[] = [];
  if (value.url !== undefined) {
    const problem = urlProblem(value.url, rules);
    if (problem) issues.push({ path: ['url'], message: problem });
  }
  if (value.events !== undefined && value.events.length === 0) issues.push({ path: ['events'], message: 'Choose at least one event.' });
  return issues.length ? { ok: false, issues } : { ok: true, value };
};

/** Events without repeats, in the order of WEBHOOK_EVENTS; resources without repeats, sorted. */
export const normalizeSettings = <T extends Partial<EndpointSettings>>(value: T): T => ({
  ...value,
  ...(value.events ? { events: WEBHOOK_EVENTS.filter((event) => value.events!.includes(event)) } : {}),
  ...(value.resources ? { resources: [...new Set(value.resources)].sort() } : {}),
});
