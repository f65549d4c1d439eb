/**
 * `public-api key <command>` (in this repository also `npm run key -- <command>`): API keys for operators
 * and scripts, run in the application's folder.
 *
 *   create --name NAME (--grants FILE | --all) [--description TEXT] [--expires DATE|<N>d] [--preview]
 *   list
 *   revoke ID        (ID: the key id shown by list, with or without `pdk_`)
 *   regenerate ID
 *   delete ID
 *   webhooks ID                                  (the key's webhook endpoints)
 *   webhook-add ID --url URL [--events E,E] [--resources R,R]
 *   webhook-rotate ENDPOINT | webhook-remove ENDPOINT
 *
 * The grants file is the grants (resources, commands, origins) and, optionally, the key's rate limit,
 * `"limits": { "requests": 600, "window": 60 }`, its shared-cache policy, `"cache": { "sharedMaxAge": 60 }`,
 * and whether it is a preview key, `"preview": true` (reads drafts with `status=draft`; `--preview` says the same),
 * and its webhook endpoints, `"webhooks": [{ "url": "https://...", "events": [...], "resources": [...] }]`
 * (each endpoint's signing secret is printed once).
 *
 * `create` and `regenerate` print the key alone on the last line of standard output. Bad input is a
 * message on standard error, a non-zero exit status, and nothing written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Core } from '@strapi/strapi';
import { withStrapi as withStrapiIn, type AppDirs } from './strapi';

export const KEY_USAGE = `usage:
  public-api key create --name NAME (--grants FILE | --all) [--description TEXT] [--expires DATE|<N>d] [--preview]
  public-api key list
  public-api key revoke ID
  public-api key regenerate ID
  public-api key delete ID
  public-api key webhooks ID
  public-api key webhook-add ID --url URL [--events record.published,...] [--resources native:events,...]
  public-api key webhook-rotate ENDPOINT
  public-api key webhook-remove ENDPOINT`;

export class UsageError extends Error {
  override name = 'UsageError';
}

/** A key name another key has: refused as the admin refuses it (409 there, exit code 1 here). */
class NameTakenError extends Error {
  override name = 'ConflictError';
}

type ApiKeyView = {
  keyId: string;
  name: string;
  prefix: string;
  lastFour: string;
  grants: { resources: Record<string, unknown>; commands: string[]; origins: string[] };
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revoked: boolean;
  limits: { requests: number; window: number } | null;
  cache: { sharedMaxAge: number } | null;
  preview: boolean;
};

type KeysService = {
  create(input: {
    name: string;
    description?: string | null;
    expiresAt?: string | null;
    grants: unknown;
    limits?: unknown;
    cache?: unknown;
    preview?: unknown;
  }): Promise<{ key: ApiKeyView; plaintext: string }>;
  list(): Promise<ApiKeyView[]>;
  revoke(id: string): Promise<ApiKeyView>;
  regenerate(id: string): Promise<{ key: ApiKeyView; plaintext: string }>;
  remove(id: string): Promise<ApiKeyView>;
  withName(name: string): Promise<{ id: number; name: string } | null>;
};

const keys = (strapi: Core.Strapi) => strapi.plugin('public-api').service('keys') as KeysService;

type WebhookView = {
  id: number;
  url: string;
  events: string[];
  resources: string[];
  enabled: boolean;
  disabledReason: string | null;
  secretHint: string;
};

type WebhooksService = {
  list(keyId: string | number): Promise<WebhookView[]>;
  create(keyId: string | number, body: unknown): Promise<{ endpoint: WebhookView; secret: string }>;
  rotate(id: string): Promise<{ endpoint: WebhookView; secret: string }>;
  remove(id: string): Promise<WebhookView>;
};

const webhooks = (strapi: Core.Strapi) => strapi.plugin('public-api').service('webhook-endpoints') as WebhooksService;

const describeWebhook = (endpoint: WebhookView) =>
  `${endpoint.id}  ${endpoint.url}  ${endpoint.events.join(',')}  ${endpoint.resources.length ? endpoint.resources.join(',') : '(every readable resource)'}  ` +
  `secret …${endpoint.secretHint}  ${endpoint.enabled ? 'on' : `off: ${endpoint.disabledReason ?? ''}`}`;

const csv = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);

/** A grants file's `webhooks`: a list of endpoint settings (checked by the webhooks service). */
const webhooksOf = (value: unknown): unknown[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw new UsageError('"webhooks" in the grants file is a list of endpoints ({ "url": ..., "events": [...], "resources": [...] }).');
  return value;
};

/** `2027-01-31`, an ISO date-time, or `<N>d` (days from now). */
export const parseExpiry = (value: string, now = new Date()): string => {
  const days = /^(\d{1,4})d$/.exec(value);
  if (days) {
    const count = Number(days[1]);
    if (count < 1) throw new UsageError('--expires in days must be at least 1d.');
    return new Date(now.getTime() + count * 86_400_000).toISOString();
  }
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new UsageError(`--expires '${value}' is neither a date (2027-01-31) nor a number of days (30d).`);
  if (time <= now.getTime()) throw new UsageError('--expires must be in the future.');
  return new Date(time).toISOString();
};

const readGrantsFile = (file: string): unknown => {
  const resolved = path.resolve(process.cwd(), file);
  let text: string;
  try {
    text = fs.readFileSync(resolved, 'utf8');
  } catch {
    throw new UsageError(`Cannot read the grants file '${file}'.`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`The grants file '${file}' is not valid JSON: ${(error as Error).message}`);
  }
};

/**
 * A grants file may carry the key's rate limit beside its grants, `"limits": { "requests": 600, "window": 60 }`
 * (without it the key has the plugin config's default), and its shared-cache policy, `"cache": {
 * "sharedMaxAge": 60 }` (without it the key's responses are `private, no-cache`), and `"preview": true` for a
 * key that may read drafts (contract section 15). The keys service checks all three.
 */
export const splitGrantsFile = (
  content: unknown,
): { grants: unknown; limits?: unknown; cache?: unknown; preview?: unknown; webhooks?: unknown } => {
  if (content === null || typeof content !== 'object' || Array.isArray(content)) return { grants: content };
  const { limits, cache, preview, webhooks: endpoints, ...grants } = content as Record<string, unknown>;
  return {
    grants,
    ...('webhooks' in content ? { webhooks: endpoints } : {}),
    ...('limits' in content ? { limits } : {}),
    ...('cache' in content ? { cache } : {}),
    ...('preview' in content ? { preview } : {}),
  };
};

const describeKey = (key: ApiKeyView) => {
  // Sorted: PostgreSQL's jsonb does not keep the order keys were written in.
  const resources = Object.keys(key.grants.resources).sort();
  return [
    `name:      ${key.name}`,
    `id:        ${key.keyId}`,
    `shown as:  ${key.prefix}_…${key.lastFour}`,
    `resources: ${resources.length ? resources.join(', ') : '(none)'}`,
    `commands:  ${key.grants.commands.length ? key.grants.commands.join(', ') : '(none)'}`,
    `origins:   ${key.grants.origins.length ? key.grants.origins.join(', ') : '(none)'}`,
    `expires:   ${key.expiresAt ?? 'never'}`,
    `limit:     ${key.limits ? `${key.limits.requests} cost units per ${key.limits.window} s` : 'the default'}`,
    `cache:     ${key.cache ? `shared, ${key.cache.sharedMaxAge} s` : 'private'}`,
    `preview:   ${key.preview ? 'yes, may read drafts (status=draft)' : 'no'}`,
  ].join('\n');
};

const pad = (value: string, width: number) => (value.length >= width ? value : value + ' '.repeat(width - value.length));

const table = (rows: string[][]) => {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => pad(cell, widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
};

const requireId = (positionals: string[], command: string): string => {
  const id = positionals[1];
  if (!id || positionals.length > 2) throw new UsageError(`${command} takes exactly one key id.\n${KEY_USAGE}`);
  return id;
};

export type Output = { out: (line: string) => void; err: (line: string) => void };

const defaultOutput: Output = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/**
 * Runs the key command `args` in the application `application` finds; resolves to the exit status. The
 * application is found (and, by the `public-api` command, compiled) only once the arguments are checked.
 */
export const runKey = async (
  args: string[],
  application: () => Promise<AppDirs> | AppDirs,
  output: Output = defaultOutput,
): Promise<number> => {
  const withStrapi = async <T>(fn: (strapi: Core.Strapi) => Promise<T>) => withStrapiIn(await application(), fn);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        description: { type: 'string' },
        grants: { type: 'string' },
        all: { type: 'boolean' },
        expires: { type: 'string' },
        preview: { type: 'boolean' },
        url: { type: 'string' },
        events: { type: 'string' },
        resources: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    output.err(`${(error as Error).message}\n${KEY_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const command = positionals[0];
  if (values.help || !command) {
    (values.help ? output.out : output.err)(KEY_USAGE);
    return values.help ? 0 : 2;
  }

  try {
    switch (command) {
      case 'create': {
        if (positionals.length > 1) throw new UsageError(`create takes no positional arguments.\n${KEY_USAGE}`);
        if (!values.name || !values.name.trim()) throw new UsageError(`create needs --name.\n${KEY_USAGE}`);
        if (Boolean(values.grants) === Boolean(values.all))
          throw new UsageError(`create needs exactly one of --grants FILE or --all.\n${KEY_USAGE}`);
        const {
          grants,
          limits,
          cache,
          preview,
          webhooks: endpoints,
        } = values.all
          ? { grants: 'all', limits: undefined, cache: undefined, preview: undefined, webhooks: undefined }
          : splitGrantsFile(readGrantsFile(values.grants!));
        const endpointList = webhooksOf(endpoints);
        const expiresAt = values.expires ? parseExpiry(values.expires) : null;
        // `--preview` or the file's `"preview": true`; the service refuses a file's flag that is not a boolean.
        const previewFlag = values.preview ? true : preview;
        const { key, plaintext, secrets } = await withStrapi(async (strapi) => {
          const taken = await keys(strapi).withName(values.name!);
          if (taken) throw new NameTakenError(`A key named '${taken.name}' exists already: give this key another name.`);
          const created = await keys(strapi).create({
            name: values.name!,
            description: values.description ?? null,
            expiresAt,
            grants,
            limits,
            cache,
            preview: previewFlag,
          });
          // The key's endpoints; a refused one removes the key again, so that nothing half made is left.
          const made: { endpoint: WebhookView; secret: string }[] = [];
          try {
            for (const endpoint of endpointList) made.push(await webhooks(strapi).create(created.key.keyId, endpoint));
          } catch (error) {
            for (const done of made) await webhooks(strapi).remove(String(done.endpoint.id));
            await keys(strapi).remove(created.key.keyId);
            throw error;
          }
          return { ...created, secrets: made };
        });
        output.out(describeKey(key));
        for (const { endpoint, secret } of secrets) {
          output.out(`webhook:   ${describeWebhook(endpoint)}`);
          output.out(`           signing secret (shown once): ${secret}`);
        }
        output.out('The key is shown once; store it now:');
        output.out(plaintext);
        return 0;
      }
      case 'list': {
        if (positionals.length > 1) throw new UsageError(`list takes no arguments.\n${KEY_USAGE}`);
        const list = await withStrapi((strapi) => keys(strapi).list());
        if (list.length === 0) {
          output.out('No keys yet. Create one with: public-api key create --name NAME --all');
          return 0;
        }
        const rows = [['ID', 'NAME', 'KEY', 'RESOURCES', 'CREATED', 'EXPIRES', 'LAST USED', 'STATUS']];
        for (const key of list) {
          const expired = key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now();
          rows.push([
            key.keyId,
            key.name,
            `${key.prefix}_…${key.lastFour}`,
            String(Object.keys(key.grants.resources).length),
            key.createdAt.slice(0, 10),
            key.expiresAt ? key.expiresAt.slice(0, 10) : 'never',
            key.lastUsedAt ? key.lastUsedAt.replace('T', ' ').slice(0, 16) : 'never',
            key.revoked ? 'revoked' : expired ? 'expired' : 'active',
          ]);
        }
        output.out(table(rows));
        return 0;
      }
      case 'revoke': {
        const id = requireId(positionals, 'revoke');
        const key = await withStrapi((strapi) => keys(strapi).revoke(id));
        output.out(`Revoked ${key.prefix}_…${key.lastFour} (${key.name}). It stops working on the next request.`);
        return 0;
      }
      case 'regenerate': {
        const id = requireId(positionals, 'regenerate');
        const { key, plaintext } = await withStrapi((strapi) => keys(strapi).regenerate(id));
        output.out(describeKey(key));
        output.out('The old key no longer works. The new key is shown once; store it now:');
        output.out(plaintext);
        return 0;
      }
      case 'delete': {
        const id = requireId(positionals, 'delete');
        const key = await withStrapi((strapi) => keys(strapi).remove(id));
        output.out(`Deleted ${key.prefix}_…${key.lastFour} (${key.name}).`);
        return 0;
      }
      case 'webhooks': {
        const id = requireId(positionals, 'webhooks');
        const list = await withStrapi((strapi) => webhooks(strapi).list(id.replace(/^pdk_/, '')));
        output.out(list.length ? list.map(describeWebhook).join('\n') : 'No webhook endpoints.');
        return 0;
      }
      case 'webhook-add': {
        const id = requireId(positionals, 'webhook-add');
        if (!values.url) throw new UsageError(`webhook-add needs --url.\n${KEY_USAGE}`);
        const body = {
          url: values.url,
          ...(values.events ? { events: csv(values.events) } : {}),
          ...(values.resources ? { resources: csv(values.resources) } : {}),
        };
        const { endpoint, secret } = await withStrapi((strapi) => webhooks(strapi).create(id.replace(/^pdk_/, ''), body));
        output.out(describeWebhook(endpoint));
        output.out('The signing secret is shown once; store it now:');
        output.out(secret);
        return 0;
      }
      case 'webhook-rotate': {
        const id = requireId(positionals, 'webhook-rotate');
        const { endpoint, secret } = await withStrapi((strapi) => webhooks(strapi).rotate(id));
        output.out(describeWebhook(endpoint));
        output.out('The previous secret signs beside the new one for 24 hours. The new secret is shown once; store it now:');
        output.out(secret);
        return 0;
      }
      case 'webhook-remove': {
        const id = requireId(positionals, 'webhook-remove');
        const endpoint = await withStrapi((strapi) => webhooks(strapi).remove(id));
        output.out(`Deleted webhook endpoint ${endpoint.id} (${endpoint.url}).`);
        return 0;
      }
      default:
        throw new UsageError(`Unknown command '${command}'.\n${KEY_USAGE}`);
    }
  } catch (error) {
    const err = error as Error & { name?: string };
    if (err instanceof UsageError) {
      output.err(err.message);
      return 2;
    }
    if (err.name === 'ValidationError' || err.name === 'NotFoundError' || err instanceof NameTakenError) {
      output.err(err.message);
      return 1;
    }
    throw error;
  }
};
