/**
 * The table of `meta.reason` (http/error-reasons.ts, contract section 22): every reason in it is in use,
 * no reason is set that it does not list, each comes with statuses of the status table, docs/api.md lists
 * it, and the OpenAPI document declares each status's reasons as an enum. The type lines below are
 * checked by `npm run typecheck`: a reason not in the table, or with a status it does not list, does not
 * compile.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ERROR_REASONS, reasonsOf, type ErrorReason } from '../../src/plugins/public-api/server/src/http/error-reasons';
import { ERROR_STATUSES, apiError, errorObject, type ErrorStatus } from '../../src/plugins/public-api/server/src/http/errors';
import { Components } from '../../src/plugins/public-api/server/src/openapi/document-components';
import { errorResponse } from '../../src/plugins/public-api/server/src/openapi/errors';

const ROOT = join(__dirname, '../..');
const SERVER = join(ROOT, 'src/plugins/public-api/server/src');
const TABLE_FILE = 'http/error-reasons.ts';
/**
 * Files that answer the admin's own routes (Strapi's error format, `details.reason`), not /api/v2: their
 * reasons are the admin page's, outside the table.
 */
const ADMIN_FILES = new Set(['services/webhooks/deliveries.ts', 'services/admin-access.ts']);

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

const sources = sourceFiles(SERVER)
  .map((path) => ({ file: relative(SERVER, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }))
  .filter((source) => source.file !== TABLE_FILE);

const reasons = Object.keys(ERROR_REASONS) as ErrorReason[];
const literalsOf = (text: string): Set<string> => new Set([...text.matchAll(/'([a-z0-9_]+)'/g)].map((match) => match[1]!));

describe('the table of error reasons', () => {
  it('has only reasons in use: each is a string literal of some module besides the table', () => {
    const used = new Set(sources.flatMap((source) => [...literalsOf(source.text)]));
    expect(reasons.filter((reason) => !used.has(reason))).toEqual([]);
  });

  it('lists every reason a module sets (`reason: ...`, compared, or a case of a reason switch)', () => {
    const set = sources
      .filter((source) => !ADMIN_FILES.has(source.file))
      .flatMap((source) =>
        [
          ...source.text.matchAll(/\breason\??:\s*(?:[^,\n}]*\?\s*)?'([a-z0-9_]+)'(?:\s*:\s*'([a-z0-9_]+)')?/g),
          ...source.text.matchAll(/\breason\s*===?\s*'([a-z0-9_]+)'/g),
        ].flatMap((match) =>
          [match[1], match[2]].filter((name): name is string => name !== undefined).map((name) => `${source.file}: ${name}`),
        ),
      );
    expect(set.length).toBeGreaterThan(100);
    const table = new Set<string>(reasons);
    expect(set.filter((entry) => !table.has(entry.split(': ')[1]!))).toEqual([]);
  });

  it('gives each reason statuses of the status table and a one-line meaning', () => {
    for (const reason of reasons) {
      const entry = ERROR_REASONS[reason];
      expect(reason).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
      expect(entry.statuses.length).toBeGreaterThan(0);
      for (const status of entry.statuses) expect(Object.keys(ERROR_STATUSES)).toContain(String(status));
      expect(entry.meaning).toMatch(/^[A-Z`].*\.$/);
      expect(entry.meaning).not.toContain('\n');
    }
  });

  it('is listed in docs/api.md, reason by reason with its statuses and meaning', () => {
    const doc = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const rows = new Map(
      [...doc.matchAll(/^\| `([a-z0-9_]+)` \| ([0-9, ]+) \| (.*) \|$/gm)].map((match) => [
        match[1]!,
        { statuses: match[2]!, meaning: match[3]! },
      ]),
    );
    expect([...rows.keys()]).toEqual(reasons);
    for (const reason of reasons) {
      expect(rows.get(reason)).toEqual({ statuses: ERROR_REASONS[reason].statuses.join(', '), meaning: ERROR_REASONS[reason].meaning });
    }
  });

  it('is declared per status as an enum in the OpenAPI document', () => {
    const c = new Components();
    for (const status of Object.keys(ERROR_STATUSES).map(Number) as ErrorStatus[]) {
      const name = errorResponse(c, status).$ref.replace('#/components/responses/', '');
      const schema = Object.values(c.responses.get(name)!.content!)[0]!.schema as { allOf: unknown[] };
      expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/ErrorDocument' });
      const reasonsOfStatus = reasonsOf(status);
      expect(schema.allOf[1]).toEqual({
        properties: {
          errors: {
            items: reasonsOfStatus.length
              ? { properties: { meta: { properties: { reason: { enum: reasonsOfStatus } } } } }
              : { properties: { meta: { not: {}, description: 'Errors of this status carry no reason.' } } },
          },
        },
      });
    }
    expect(reasonsOf(404)).toEqual(expect.arrayContaining(['unknown_path', 'resource_not_found', 'record_not_found', 'asset_not_found']));
    expect(reasonsOf(406)).toEqual(['not_acceptable', 'media_type_parameters', 'extension_unsupported']);
    expect(reasonsOf(401)).toEqual([]);
    // Every reason is some status's.
    const declared = new Set(Object.keys(ERROR_STATUSES).flatMap((status) => reasonsOf(Number(status))));
    expect(reasons.filter((reason) => !declared.has(reason))).toEqual([]);
  });

  it('types a reason by the table and by its status', () => {
    const statuses = (object: { meta?: { reason: string } }) => object.meta?.reason;
    expect(statuses(errorObject(404, 'x', { reason: 'record_not_found' }))).toBe('record_not_found');
    // @ts-expect-error a reason the table does not list
    errorObject(404, 'x', { reason: 'no_such_reason' });
    // @ts-expect-error a reason of the table, with a status it does not come with
    apiError(404, 'x', { reason: 'rate_limited' });
    const any: ErrorStatus = 429;
    expect(apiError(any, 'x', { reason: 'rate_limited' }).errors[0]!.meta).toEqual({ reason: 'rate_limited' });
  });
});
