/**
 * The admin panel's pure logic, without a browser: grant editing, the keys list order, expiry,
 * the OpenAPI summary, the curl example and error mapping.
 */
import type { ResourceSummary } from '../../src/plugins/public-api/shared/contracts/registry';
import type { AdminKey } from '../../src/plugins/public-api/shared/contracts/keys';
import {
  EMPTY_GRANTS,
  columnState,
  danglingCommands,
  danglingResources,
  grantOf,
  sameGrants,
  sentOriginIndex,
  setAction,
  setAllFields,
  setField,
  toInput,
} from '../../src/plugins/public-api/admin/src/utils/grants';
import { sortKeys } from '../../src/plugins/public-api/admin/src/pages/keys/sortKeys';
import { endOfDay, expiresAtFor, isExpired } from '../../src/plugins/public-api/admin/src/utils/expiry';
import { relativeTime } from '../../src/plugins/public-api/admin/src/utils/dates';
import { summarizeOpenApi, typeLabel } from '../../src/plugins/public-api/admin/src/components/preview/openapi';
import { curlExample } from '../../src/plugins/public-api/admin/src/components/preview/curl';
import {
  errorsUnder,
  isContentManagerRefusal,
  issuesOf,
  messageOf,
  refusalOf,
  toFieldErrors,
} from '../../src/plugins/public-api/admin/src/utils/errors';

const EVENTS: ResourceSummary = {
  id: 'native:events',
  name: 'Events',
  slug: 'events',
  mode: 'collection',
  sourceType: 'native',
  website: null,
  path: '/events',
  contentType: 'api::event.event',
  actions: ['read', 'create', 'update', 'delete'],
  fields: ['title', 'summary', 'venue'].map((key) => ({ key, label: key, type: 'string', required: false, localized: false })),
  personalData: false,
};

describe('grants', () => {
  test('a readable field grants read; fields keep the schema order; an empty grant disappears', () => {
    let draft = setField(EMPTY_GRANTS, EVENTS, 'venue', 'read', true);
    draft = setField(draft, EVENTS, 'title', 'read', true);
    expect(grantOf(draft, 'native:events')).toEqual({ actions: ['read'], read: ['title', 'venue'], write: [] });
    expect(columnState(grantOf(draft, 'native:events'), EVENTS, 'read')).toBe('indeterminate');
    draft = setAllFields(draft, EVENTS, 'read', true);
    expect(columnState(grantOf(draft, 'native:events'), EVENTS, 'read')).toBe(true);
    draft = setAllFields(draft, EVENTS, 'read', false);
    draft = setAction(draft, EVENTS, 'read', false);
    expect(draft.resources).toEqual({});
  });

  test('Read alone reads every field (never zero); unticking it drops the readable fields; a narrowed list is kept', () => {
    let draft = setAction(EMPTY_GRANTS, EVENTS, 'read', true);
    expect(grantOf(draft, 'native:events')).toEqual({ actions: ['read'], read: ['title', 'summary', 'venue'], write: [] });
    draft = setField(draft, EVENTS, 'venue', 'read', false);
    draft = setAction(draft, EVENTS, 'create', true);
    expect(grantOf(draft, 'native:events')).toEqual({ actions: ['read', 'create'], read: ['title', 'summary'], write: [] });
    draft = setAction(draft, EVENTS, 'read', false);
    expect(grantOf(draft, 'native:events')).toEqual({ actions: ['create'], read: [], write: [] });
  });

  test('what is sent: known resources, no blank origins; origin errors map back to their rows', () => {
    const draft = {
      resources: {
        'native:events': { actions: ['read' as const], read: ['title'], write: [] },
        'cms:gone/pages': { actions: ['read' as const], read: [], write: [] },
      },
      commands: [],
      origins: ['', 'https://a.example', ' ', 'https://b.example'],
    };
    expect(danglingResources(draft, [EVENTS])).toEqual(['cms:gone/pages']);
    expect(toInput(draft, [EVENTS], [])).toEqual({
      resources: { 'native:events': draft.resources['native:events'] },
      commands: [],
      origins: ['https://a.example', 'https://b.example'],
    });
    expect([...sentOriginIndex(draft.origins)]).toEqual([
      [0, 1],
      [1, 3],
    ]);
    expect(sameGrants(draft, { ...draft, origins: ['https://a.example', 'https://b.example'] })).toBe(true);
  });

  test('a command the application no longer registers is shown as dangling and not sent, as a removed resource', () => {
    const draft = { resources: {}, commands: ['newsletter-signup', 'gone-command'], origins: [] };
    const commands = [{ name: 'newsletter-signup', description: 'Subscribe.' }];
    expect(danglingCommands(draft, commands)).toEqual(['gone-command']);
    expect(toInput(draft, [EVENTS], commands).commands).toEqual(['newsletter-signup']);
  });
});

test('keys list: filter by name, sort by name or last use with never-used keys last', () => {
  const key = (id: number, name: string, lastUsedAt: string | null) =>
    ({ id, name, lastUsedAt, createdAt: `2026-01-0${id}T00:00:00.000Z` }) as AdminKey;
  const keys = [key(1, 'beta', null), key(2, 'Alpha', '2026-02-01T00:00:00.000Z'), key(3, 'gamma', '2026-03-01T00:00:00.000Z')];
  const names = (list: AdminKey[]) => list.map((k) => k.name);
  expect(names(sortKeys(keys, '', { column: 'name', direction: 'asc' }))).toEqual(['Alpha', 'beta', 'gamma']);
  expect(names(sortKeys(keys, '', { column: 'lastUsedAt', direction: 'desc' }))).toEqual(['gamma', 'Alpha', 'beta']);
  expect(names(sortKeys(keys, '', { column: 'lastUsedAt', direction: 'asc' }))).toEqual(['Alpha', 'gamma', 'beta']);
  expect(names(sortKeys(keys, ' ALP', { column: 'name', direction: 'asc' }))).toEqual(['Alpha']);
});

test('expiry presets, custom dates to the end of the day, relative times', () => {
  const now = new Date('2026-05-10T12:00:00.000Z');
  expect(expiresAtFor('never', undefined, now)).toBeNull();
  expect(expiresAtFor('7', undefined, now)).toBe('2026-05-17T12:00:00.000Z');
  expect(expiresAtFor('custom', new Date(2026, 5, 1), now)).toBe(endOfDay(new Date(2026, 5, 1)).toISOString());
  expect(isExpired('2026-05-10T11:59:59.000Z', now)).toBe(true);
  expect(isExpired(null, now)).toBe(false);
  expect(relativeTime('2026-05-10T09:00:00.000Z', now)).toEqual({ value: -3, unit: 'hour' });
  expect(relativeTime('2026-05-10T11:59:30.000Z', now)).toEqual({ value: -30, unit: 'second' });
});

test('the OpenAPI summary reads paths, methods, parameters (by reference too) and schema fields; anything else is null', () => {
  const summary = summarizeOpenApi({
    openapi: '3.1.0',
    info: { title: 'API', version: '2' },
    paths: {
      '/events': {
        parameters: [{ $ref: '#/components/parameters/Limit' }],
        get: { operationId: 'listEvents' },
        post: { summary: 'Create' },
      },
    },
    components: {
      parameters: { Limit: { name: 'limit', in: 'query' } },
      schemas: {
        Event: {
          type: 'object',
          required: ['title'],
          properties: {
            title: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' } },
            venue: { oneOf: [{ $ref: '#/components/schemas/Ref' }, { type: 'null' }] },
          },
        },
      },
    },
  });
  expect(summary).toEqual({
    title: 'API',
    version: '2',
    openapi: '3.1.0',
    paths: [
      {
        path: '/events',
        operations: [
          { method: 'GET', summary: 'listEvents', parameters: ['limit (query)'] },
          { method: 'POST', summary: 'Create', parameters: ['limit (query)'] },
        ],
      },
    ],
    schemas: [
      {
        name: 'Event',
        description: '',
        fields: [
          { name: 'title', type: 'string', required: true },
          { name: 'tags', type: 'array of string', required: false },
          { name: 'venue', type: 'Ref | null', required: false },
        ],
      },
    ],
  });
  expect(summarizeOpenApi({ errors: [] })).toBeNull();
  expect(summarizeOpenApi('nope')).toBeNull();
  expect(typeLabel({ type: 'string', format: 'date-time' })).toBe('string (date-time)');
  expect(typeLabel({ enum: ['a', 'b'] })).toBe('enum (a, b)');
});

test('the curl example quotes the URL and never holds a secret', () => {
  expect(curlExample('https://x.example/api/v2', "/cms/o'brien/pages", 'collection')).toBe(
    `curl 'https://x.example/api/v2/cms/o'\\''brien/pages?limit=5' \\\n  -H "Authorization: Bearer $PUBLIC_DATA_API_KEY" \\\n  -H 'Accept: application/vnd.api+json'`,
  );
  expect(curlExample('https://x.example/api/v2', '/cms/site/settings', 'singleton')).toContain(
    "'https://x.example/api/v2/cms/site/settings'",
  );
});

test('refusals map onto fields', () => {
  const error = {
    response: {
      data: {
        error: {
          details: {
            errors: [
              { path: ['origins', '1'], message: 'bad' },
              { path: ['publications', '0', 'collection'], message: 'taken' },
              { path: ['name'], message: 'a' },
              { path: ['name'], message: 'b' },
            ],
          },
        },
      },
    },
  };
  const fields = toFieldErrors(issuesOf(error)!);
  expect(fields).toEqual({ 'origins.1': 'bad', 'publications.0.collection': 'taken', name: 'a b' });
  expect(errorsUnder(fields, 'publications')).toEqual({ '0.collection': 'taken' });
  expect(issuesOf(new Error('network'))).toBeNull();
});

test("a Content Manager refusal is told apart from other refusals, and its message is the notification's", () => {
  const refusal = (reason: unknown) => ({
    response: {
      data: {
        data: null,
        error: {
          status: 403,
          name: 'PolicyError',
          message: 'You may grant, publish or preview only what you may do yourself in the Content Manager.',
          details: { reason, errors: [{ path: ['preview'], message: 'A preview key reads the drafts of native:events.' }] },
        },
      },
    },
  });
  expect(isContentManagerRefusal(refusal('content_manager_permissions'))).toBe(true);
  expect(messageOf(refusal('content_manager_permissions'), 'fallback')).toBe(
    'You may grant, publish or preview only what you may do yourself in the Content Manager.',
  );
  expect(toFieldErrors(issuesOf(refusal('content_manager_permissions'))!)).toEqual({
    preview: 'A preview key reads the drafts of native:events.',
  });
  expect(isContentManagerRefusal(refusal(undefined))).toBe(false);
  expect(isContentManagerRefusal(new Error('network'))).toBe(false);
});

test('a refused request is reported one way: field messages where the page has fields, the right notification text', () => {
  const text = { invalid: 'Some values are not valid.', failed: 'Something went wrong.' };
  const refused = (reason: unknown, message = 'The slug is taken.') => ({
    response: {
      data: { data: null, error: { status: 400, message, details: { reason, errors: [{ path: ['slug'], message: 'Taken.' }] } } },
    },
  });
  // Field issues: under the fields, and the generic "not valid" text (the fields say what).
  expect(refusalOf(refused(undefined), text, true)).toEqual({ fieldErrors: { slug: 'Taken.' }, message: 'Some values are not valid.' });
  // A Content Manager refusal: under the fields too, and its own message says why.
  expect(refusalOf(refused('content_manager_permissions', 'Ask for more.'), text, true)).toEqual({
    fieldErrors: { slug: 'Taken.' },
    message: 'Ask for more.',
  });
  // A page with no fields to show them under: the server's word alone.
  expect(refusalOf(refused(undefined), text, false)).toEqual({ fieldErrors: null, message: 'The slug is taken.' });
  // No answer at all (the network): the fallback.
  expect(refusalOf(new Error('network'), text, true)).toEqual({ fieldErrors: null, message: 'Something went wrong.' });
});
