/**
 * The pure parts of writing (contract section 7): request documents, attribute values against a key's
 * projection, Strapi's refusals as API errors, request bodies, and the Idempotency-Key helpers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { project, type Projection } from '../../src/plugins/public-api/server/src/grants/projection';
import type { KeyGrants } from '../../src/plugins/public-api/server/src/grants/types';
import { ApiError } from '../../src/plugins/public-api/server/src/http/errors';
import {
  MAX_BODY_BYTES,
  announcesBody,
  createBodyReader,
  parseJsonBytes,
  type BodyKind,
  type BodyTimeouts,
} from '../../src/plugins/public-api/server/src/http/body';

const TIMEOUTS: BodyTimeouts = { jsonMs: 1_000, multipartMs: 3_000, gapMs: 500 };
import { parseIdempotencyKey } from '../../src/plugins/public-api/server/src/http/idempotency';
import {
  canonicalJson,
  idempotencyScope,
  isStoredStatus,
  requestFingerprint,
} from '../../src/plugins/public-api/server/src/idempotency/request';
import { NATIVE_RESOURCES } from '../../src/settings/native-resources';
import { buildNativeResources, type ContentTypeSchema } from '../../src/plugins/public-api/server/src/registry/build';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';
import { isDate } from '../../src/plugins/public-api/server/src/fields/types/date';
import { normalizeDatetime } from '../../src/plugins/public-api/server/src/fields/types/datetime';
import { planAttributes } from '../../src/plugins/public-api/server/src/write/attributes';
import { assertDocumentTarget, parseResourceDocument } from '../../src/plugins/public-api/server/src/write/resource-object';
import { attributePointer, pointer } from '../../src/plugins/public-api/server/src/write/pointer';
import { UNIQUE_MESSAGE, apiErrorOfWrite } from '../../src/plugins/public-api/server/src/write/violations';
import { errors } from '@strapi/utils';

const API_DIR = path.resolve(__dirname, '..', '..', 'src', 'api');

const schemas = new Map<string, ContentTypeSchema>(
  fs.readdirSync(API_DIR).map((name) => {
    const file = path.join(API_DIR, name, 'content-types', name, 'schema.json');
    const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as Omit<ContentTypeSchema, 'uid'>;
    // Strapi stores a custom field under its underlying type (tags: json) once registered.
    for (const attribute of Object.values(schema.attributes)) if (attribute.type === 'customField') attribute.type = 'json';
    const uid = `api::${name}.${name}`;
    return [uid, { ...schema, uid } as ContentTypeSchema];
  }),
);
const natives = buildNativeResources(NATIVE_RESOURCES, schemas);
const resource = (slug: string): Resource => natives.find((candidate) => candidate.slug === slug)!;
const resolveTarget = (_from: Resource, uid: string) => natives.find((candidate) => candidate.uid === uid) ?? null;

const projectionOf = (slug: string, grants: KeyGrants['resources']): Projection =>
  project({ resources: grants, commands: [], origins: [] }, resource(slug), resolveTarget);

const ALL_EVENTS = projectionOf('events', {
  'native:events': { actions: ['read', 'create', 'update'], read: [], write: resource('events').fields.map((field) => field.key) },
  'native:buildings': { actions: ['read'], read: ['name'], write: [] },
  'native:festivals': { actions: ['read'], read: ['name'], write: [] },
});

const statusOf = (fn: () => unknown): number | 'ok' => {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
};

const errorOf = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
};

describe('pointers', () => {
  test('escape ~ and / (RFC 6901)', () => {
    expect(pointer('data', 'attributes', 'a/b~c')).toBe('/data/attributes/a~1b~0c');
    expect(attributePointer('tags', 2)).toBe('/data/attributes/tags/2');
  });
});

describe('the request document', () => {
  test('a resource object is read; attributes may be left out', () => {
    expect(parseResourceDocument({ data: { type: 'events', attributes: { title: 'x' } } })).toEqual({
      type: 'events',
      id: null,
      attributes: { title: 'x' },
    });
    expect(parseResourceDocument({ jsonapi: { version: '1.1' }, meta: {}, data: { type: 'events', id: 'abc', meta: { a: 1 } } })).toEqual({
      type: 'events',
      id: 'abc',
      attributes: {},
    });
  });

  test.each([
    [null, ''],
    [[], ''],
    ['x', ''],
    [{}, '/data'],
    [{ data: [] }, '/data'],
    [{ data: null }, '/data'],
    [{ data: { type: 'events' }, included: [] }, '/included'],
    [{ data: { attributes: {} } }, '/data/type'],
    [{ data: { type: '' } }, '/data/type'],
    [{ data: { type: 3 } }, '/data/type'],
    [{ data: { type: 'events', id: 5 } }, '/data/id'],
    [{ data: { type: 'events', attributes: [] } }, '/data/attributes'],
    [{ data: { type: 'events', relationships: {} } }, '/data/relationships'],
    [{ data: { type: 'events', links: {} } }, '/data/links'],
  ])('%j is 400 at %s', (body, at) => {
    const error = errorOf(() => parseResourceDocument(body));
    expect(error.status).toBe(400);
    expect(error.errors.map((e) => e.source)).toContainEqual({ pointer: at });
  });

  test('type and id must match the path: 409; a new record with its own id: 403', () => {
    const doc = { type: 'events', id: null, attributes: {} };
    expect(statusOf(() => assertDocumentTarget(doc, { type: 'events', id: null }))).toBe('ok');
    expect(errorOf(() => assertDocumentTarget(doc, { type: 'jobs', id: null })).errors[0]).toMatchObject({
      status: '409',
      source: { pointer: '/data/type' },
      meta: { reason: 'type_mismatch' },
    });
    expect(errorOf(() => assertDocumentTarget({ ...doc, id: 'x' }, { type: 'events', id: null })).errors[0]).toMatchObject({
      status: '403',
      code: 'forbidden',
      meta: { reason: 'client_id_not_supported' },
    });
    expect(errorOf(() => assertDocumentTarget({ ...doc, id: 'x' }, { type: 'events', id: 'y' })).errors[0]).toMatchObject({
      status: '409',
      source: { pointer: '/data/id' },
      meta: { reason: 'id_mismatch' },
    });
    expect(statusOf(() => assertDocumentTarget({ ...doc, id: 'y' }, { type: 'events', id: 'y' }))).toBe('ok');
    expect(statusOf(() => assertDocumentTarget(doc, { type: 'events', id: 'y' }))).toBe('ok');
  });
});

describe('attribute values', () => {
  const plan = (attributes: Record<string, unknown>, projection = ALL_EVENTS) => planAttributes(projection, attributes);
  const problemsOf = (attributes: Record<string, unknown>, projection = ALL_EVENTS) =>
    plan(attributes, projection).problems.map((problem) => [
      problem.source && 'pointer' in problem.source ? problem.source.pointer : null,
      problem.meta?.reason,
    ]);

  test('every valid shape is planned', () => {
    const result = plan({
      title: 'Jazz',
      slug: null,
      sort: 3,
      summary: 'text',
      startsAt: '2027-06-01T21:30:00+02:00',
      endsAt: null,
      category: 'talk',
      tags: ['a', 'b'],
      price: 12.5,
      soldOut: false,
      capacity: 100,
      venue: 'main-hall',
      festival: { id: 'f1', slug: null, collection: 'festivals' },
      cover: { id: 'file1', url: 'ignored' },
      body: { type: 'doc', content: [] },
    });
    expect(result.problems).toEqual([]);
    const planned = Object.fromEntries(result.fields.map((entry) => [entry.field.key, entry.planned]));
    expect(planned.startsAt).toEqual({ kind: 'value', value: '2027-06-01T19:30:00.000Z' });
    expect(planned.venue).toEqual({ kind: 'relation', refs: [{ by: 'either', value: 'main-hall', pointer: '/data/attributes/venue' }] });
    expect(planned.festival).toEqual({ kind: 'relation', refs: [{ by: 'id', value: 'f1', pointer: '/data/attributes/festival' }] });
    expect(planned.cover).toEqual({ kind: 'media', refs: [{ id: 'file1', pointer: '/data/attributes/cover' }] });
    expect(planned.body).toEqual({ kind: 'richtext', doc: { type: 'doc', content: [] } });
    expect(planned.tags).toEqual({ kind: 'value', value: ['a', 'b'] });
  });

  test('null clears relations and media', () => {
    const planned = Object.fromEntries(plan({ venue: null, cover: null }).fields.map((entry) => [entry.field.key, entry.planned]));
    expect(planned).toEqual({ venue: { kind: 'relation', refs: [] }, cover: { kind: 'media', refs: [] } });
  });

  test.each([
    [{ title: 5 }, '/data/attributes/title'],
    [{ title: 'x'.repeat(256) }, '/data/attributes/title'],
    [{ summary: ['x'] }, '/data/attributes/summary'],
    [{ sort: 1.5 }, '/data/attributes/sort'],
    [{ sort: 2 ** 31 }, '/data/attributes/sort'],
    [{ sort: '3' }, '/data/attributes/sort'],
    [{ price: 1e8 }, '/data/attributes/price'],
    [{ price: 1.234 }, '/data/attributes/price'],
    [{ soldOut: 'yes' }, '/data/attributes/soldOut'],
    [{ startsAt: '2027-06-01' }, '/data/attributes/startsAt'],
    [{ startsAt: '2027-06-01T19:30:00' }, '/data/attributes/startsAt'],
    [{ startsAt: '2027-02-30T19:30:00Z' }, '/data/attributes/startsAt'],
    [{ startsAt: 1795309135596 }, '/data/attributes/startsAt'],
    [{ category: 'opera' }, '/data/attributes/category'],
    [{ tags: 'jazz' }, '/data/attributes/tags'],
    [{ tags: ['a', 3] }, '/data/attributes/tags/1'],
    [{ tags: ['a', ' '] }, '/data/attributes/tags/1'],
    [{ venue: ['a'] }, '/data/attributes/venue'],
    [{ venue: {} }, '/data/attributes/venue'],
    [{ venue: '' }, '/data/attributes/venue'],
    [{ venue: { id: 3 } }, '/data/attributes/venue/id'],
    [{ venue: { slug: '' } }, '/data/attributes/venue/slug'],
    [{ venue: { id: 'x', collection: 'festivals' } }, '/data/attributes/venue/collection'],
    [{ venue: { id: 'x', type: 'events' } }, '/data/attributes/venue/type'],
    [{ cover: 5 }, '/data/attributes/cover'],
    [{ cover: [{ id: 'x' }] }, '/data/attributes/cover'],
    [{ cover: { url: 'x' } }, '/data/attributes/cover'],
    [{ body: 'text' }, '/data/attributes/body'],
    [{ body: [] }, '/data/attributes/body'],
  ])('%j is refused at %s', (attributes, at) => {
    expect(problemsOf(attributes)).toEqual([[at, 'value_invalid']]);
  });

  test('to-many fields take arrays and point at the offending item', () => {
    const buildings = projectionOf('buildings', {
      'native:buildings': { actions: ['create'], read: [], write: ['events', 'images'] },
      'native:events': { actions: ['read'], read: [], write: [] },
    });
    expect(problemsOf({ events: 'x' }, buildings)).toEqual([['/data/attributes/events', 'value_invalid']]);
    expect(problemsOf({ events: ['a', 7, { slug: 'b' }] }, buildings)).toEqual([['/data/attributes/events/1', 'value_invalid']]);
    expect(problemsOf({ images: ['a', {}, 'c'] }, buildings)).toEqual([['/data/attributes/images/1', 'value_invalid']]);
    const planned = planAttributes(buildings, { events: null, images: null }).fields.map((entry) => entry.planned);
    expect(planned).toEqual([
      { kind: 'relation', refs: [] },
      { kind: 'media', refs: [] },
    ]);
  });

  test('unknown and ungranted fields get one and the same answer each, and reject the write', () => {
    const projection = projectionOf('events', {
      'native:events': { actions: ['read', 'create'], read: ['title', 'price'], write: ['title'] },
    });
    const result = plan({ title: 'x', price: 5, nope: 1, 'a/b': 2, venue: 'x' }, projection);
    expect(result.problems).toEqual(
      ['price', 'nope', 'a/b', 'venue'].map((name) => ({
        status: '422',
        code: 'unprocessable_entity',
        title: 'Unprocessable Entity',
        detail: `Field '${name}' is not writable with this key.`,
        source: { pointer: attributePointer(name) },
        meta: { reason: 'field_not_writable' },
      })),
    );
  });

  test('dates and date-times are real calendar values', () => {
    expect(isDate('2028-02-29')).toBe(true);
    expect(isDate('2027-02-29')).toBe(false);
    expect(isDate('2027-13-01')).toBe(false);
    expect(normalizeDatetime('2027-06-01T19:30Z')).toBe('2027-06-01T19:30:00.000Z');
    expect(normalizeDatetime('2027-06-01T19:30:00.5-01:30')).toBe('2027-06-01T21:00:00.500Z');
    expect(normalizeDatetime('2027-06-01T24:00:00Z')).toBeNull();
    expect(normalizeDatetime('2027-06-01 19:30:00Z')).toBeNull();
  });

  test('property: only writable fields are ever planned, and each other one is reported once', () => {
    const keys = resource('events').fields.map((field) => field.key);
    const names = fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.subarray(keys), fc.dictionary(names, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 12 }), (write, attributes) => {
        const projection = projectionOf('events', {
          'native:events': { actions: ['create', 'update'], read: [], write },
          'native:buildings': { actions: ['read'], read: [], write: [] },
          'native:festivals': { actions: ['read'], read: [], write: [] },
        });
        const writable = new Set(projection.writable.map((field) => field.key));
        const result = planAttributes(projection, attributes);
        for (const entry of result.fields) expect(writable.has(entry.field.key)).toBe(true);
        const refused = Object.keys(attributes).filter((name) => !writable.has(name));
        const notWritable = result.problems.filter((problem) => problem.meta?.reason === 'field_not_writable');
        expect(notWritable.map((problem) => problem.detail)).toEqual(
          refused.slice(0, 20).map(() => expect.stringContaining('is not writable')),
        );
        if (refused.length) expect(result.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe("Strapi's refusals", () => {
  const scope = { visible: new Set(['title', 'slug', 'endsAt']), readable: new Set(['title', 'slug', 'endsAt']) };
  const validation = (details: { path: string[]; message: string }[], message = 'x') =>
    new errors.ValidationError(message, { errors: details.map((detail) => ({ ...detail, name: 'ValidationError' })) });

  test('each detail on a visible field is a 422 on its attribute', () => {
    const error = apiErrorOfWrite(
      validation([
        { path: ['endsAt'], message: 'An event must end after it starts.' },
        { path: ['title'], message: 'title must be defined.' },
      ]),
      scope,
    )!;
    expect(error.status).toBe(422);
    expect(error.errors).toEqual([
      expect.objectContaining({
        detail: 'An event must end after it starts.',
        source: { pointer: '/data/attributes/endsAt' },
        meta: { reason: 'validation_failed' },
      }),
      expect.objectContaining({ detail: 'title must be defined.', source: { pointer: '/data/attributes/title' } }),
    ]);
  });

  test('a problem on a field the key cannot see is reported without naming it, once', () => {
    const error = apiErrorOfWrite(
      validation([
        { path: ['secret'], message: 'secret must be defined.' },
        { path: ['other'], message: 'other must be defined.' },
      ]),
      scope,
    )!;
    expect(error.errors).toEqual([
      {
        status: '422',
        code: 'unprocessable_entity',
        title: 'Unprocessable Entity',
        detail: expect.not.stringMatching(/secret|other/),
        meta: { reason: 'hidden_field_invalid' },
      },
    ]);
  });

  test('a duplicate value alone is a 409; with other problems it is one more 422', () => {
    expect(apiErrorOfWrite(validation([{ path: ['slug'], message: UNIQUE_MESSAGE }]), scope)!.errors).toEqual([
      expect.objectContaining({ status: '409', source: { pointer: '/data/attributes/slug' }, meta: { reason: 'duplicate_value' } }),
    ]);
    const mixed = apiErrorOfWrite(
      validation([
        { path: ['slug'], message: UNIQUE_MESSAGE },
        { path: ['title'], message: 'title must be defined.' },
      ]),
      scope,
    )!;
    expect(mixed.status).toBe(422);
    expect(mixed.errors.map((e) => e.status)).toEqual(['422', '422']);
  });

  test('a ValidationError without details is one 422; database data errors are 422; other errors are not client errors', () => {
    expect(apiErrorOfWrite(new errors.ValidationError('Invalid format'), scope)!.errors).toEqual([
      expect.objectContaining({ status: '422', detail: 'Invalid format' }),
    ]);
    expect(apiErrorOfWrite(Object.assign(new Error('value too long'), { code: '22001' }), scope)!.status).toBe(422);
    expect(apiErrorOfWrite(Object.assign(new Error('duplicate key'), { code: '23505' }), scope)!.status).toBe(409);
    expect(apiErrorOfWrite(new Error('connection lost'), scope)).toBeNull();
    expect(apiErrorOfWrite(new errors.ApplicationError('x'), scope)).toBeNull();
  });
});

describe('request bodies', () => {
  test('a body is announced by a positive length or a chunked transfer', () => {
    expect(announcesBody({})).toBe(false);
    expect(announcesBody({ 'content-length': '0' })).toBe(false);
    expect(announcesBody({ 'content-length': '2' })).toBe(true);
    expect(announcesBody({ 'transfer-encoding': 'chunked' })).toBe(true);
  });

  test('JSON in UTF-8, not nested without end', () => {
    expect(parseJsonBytes(Buffer.from('{"a":"é"}'))).toEqual({ a: 'é' });
    expect(errorOf(() => parseJsonBytes(Buffer.from('{"a":'))).errors[0]!.meta).toEqual({ reason: 'body_malformed' });
    expect(errorOf(() => parseJsonBytes(Buffer.from([0x7b, 0xff, 0x7d]))).errors[0]!.meta).toEqual({ reason: 'body_not_utf8' });
    expect(errorOf(() => parseJsonBytes(Buffer.from(`${'['.repeat(200)}${']'.repeat(200)}`))).errors[0]!.meta).toEqual({
      reason: 'body_too_deep',
    });
  });

  test('a declared length over the limit is refused before reading; a longer stream as soon as it passes it', async () => {
    const declared = new PassThrough();
    await expect(
      createBodyReader(declared, { 'content-length': String(MAX_BODY_BYTES + 1) }, TIMEOUTS)(MAX_BODY_BYTES, 'json'),
    ).rejects.toMatchObject({
      status: 413,
    });

    const stream = new PassThrough();
    const read = createBodyReader(stream, { 'transfer-encoding': 'chunked' }, TIMEOUTS)(10, 'json');
    stream.write(Buffer.alloc(6));
    stream.write(Buffer.alloc(6));
    await expect(read).rejects.toMatchObject({ status: 413, headers: { Connection: 'close' } });

    const fits = new PassThrough();
    const reader = createBodyReader(fits, {}, TIMEOUTS);
    const body = reader(10, 'json');
    fits.end(Buffer.from('0123456789'));
    expect((await body).toString()).toBe('0123456789');
    // Read once: a second call answers the same.
    expect((await reader(10, 'json')).toString()).toBe('0123456789');
  });

  describe('time limits', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    /** Writes a byte every `everyMs` until the read settles; what it settled with. */
    const trickle = async (kind: BodyKind, everyMs: number) => {
      const stream = new PassThrough();
      let outcome: unknown = 'pending';
      createBodyReader(
        stream,
        { 'content-length': '100000' },
        TIMEOUTS,
      )(100_000, kind).then(
        () => (outcome = 'read'),
        (error: unknown) => (outcome = error),
      );
      let elapsed = 0;
      while (outcome === 'pending' && elapsed < 60_000) {
        stream.write(Buffer.from('x'));
        await jest.advanceTimersByTimeAsync(everyMs);
        elapsed += everyMs;
      }
      return { outcome, elapsed };
    };

    test("a body still arriving at its kind's limit is refused 408 body_too_slow, with Connection: close", async () => {
      const json = await trickle('json', 100);
      expect(json.outcome).toMatchObject({
        status: 408,
        headers: { Connection: 'close' },
        errors: [{ code: 'request_timeout', meta: { reason: 'body_too_slow' } }],
      });
      expect(json.elapsed).toBe(TIMEOUTS.jsonMs);
      const multipart = await trickle('multipart', 100);
      expect(multipart.outcome).toMatchObject({ status: 408, errors: [{ meta: { reason: 'body_too_slow' } }] });
      expect(multipart.elapsed).toBe(TIMEOUTS.multipartMs);
    });

    test('a gap longer than the gap limit is refused 408 body_stalled; each chunk restarts the gap', async () => {
      const stalled = await trickle('multipart', TIMEOUTS.gapMs + 100);
      expect(stalled.outcome).toMatchObject({ status: 408, errors: [{ meta: { reason: 'body_stalled' } }] });
      expect(stalled.elapsed).toBe(TIMEOUTS.gapMs + 100);
      // Chunks just within the gap limit keep the body alive until its total limit.
      expect((await trickle('multipart', TIMEOUTS.gapMs - 100)).outcome).toMatchObject({ errors: [{ meta: { reason: 'body_too_slow' } }] });
    });

    test('a body that arrives in time is read, and no timer is left behind', async () => {
      const stream = new PassThrough();
      const read = createBodyReader(stream, {}, TIMEOUTS)(10, 'json');
      await jest.advanceTimersByTimeAsync(TIMEOUTS.gapMs - 1);
      stream.end(Buffer.from('{}'));
      expect((await read).toString()).toBe('{}');
      expect(jest.getTimerCount()).toBe(0);
    });
  });
});

describe('Idempotency-Key', () => {
  test.each([
    ['abc', 'abc'],
    ['"abc"', 'abc'],
    ['  a b  ', '  a b  '],
    ['x'.repeat(255), 'x'.repeat(255)],
    ['"ä"', null],
    ['', null],
    ['""', null],
    ['x'.repeat(256), null],
    ['a\tb', null],
    ['"a"b"', 'a"b'],
    ['a"b', 'a"b'],
  ])('%j -> %j', (header, key) => {
    if (key === null) {
      expect(errorOf(() => parseIdempotencyKey(header)).errors[0]).toMatchObject({ status: '400', source: { header: 'Idempotency-Key' } });
    } else {
      expect(parseIdempotencyKey(header)).toBe(key);
    }
  });

  test('absent is no key; sent twice is refused', () => {
    expect(parseIdempotencyKey(undefined)).toBeNull();
    expect(statusOf(() => parseIdempotencyKey(['a', 'b']))).toBe(400);
  });

  test('the fingerprint ignores member order, spacing and parameter order, and nothing else', () => {
    const base = {
      method: 'POST',
      path: '/events',
      query: new URLSearchParams('locale=de'),
      body: { data: { type: 'events', attributes: { a: 1, b: [1, 2] } } },
    };
    const fingerprint = requestFingerprint(base);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(
      requestFingerprint({ ...base, body: JSON.parse('{ "data": { "attributes": { "b": [1, 2], "a": 1.0 }, "type": "events" } }') }),
    ).toBe(fingerprint);
    expect(requestFingerprint({ ...base, query: new URLSearchParams('a=1&locale=de') })).not.toBe(fingerprint);
    expect(requestFingerprint({ ...base, method: 'PATCH' })).not.toBe(fingerprint);
    expect(requestFingerprint({ ...base, path: '/events/x' })).not.toBe(fingerprint);
    expect(requestFingerprint({ ...base, body: { data: { type: 'events', attributes: { a: 1, b: [2, 1] } } } })).not.toBe(fingerprint);
    expect(requestFingerprint({ ...base, query: new URLSearchParams('x=1&y=2') })).toBe(
      requestFingerprint({ ...base, query: new URLSearchParams('y=2&x=1') }),
    );
  });

  test('canonical JSON sorts members at every level', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
        const shuffled = JSON.parse(
          JSON.stringify(value, (_key, member) =>
            member && typeof member === 'object' && !Array.isArray(member) ? Object.fromEntries(Object.entries(member).reverse()) : member,
          ),
        );
        expect(canonicalJson(shuffled)).toBe(canonicalJson(value));
      }),
    );
  });

  test('answers are filed per API key, method, path and key', () => {
    const one = { apiKey: 1, method: 'POST', path: '/events', idempotencyKey: 'k' };
    const scope = idempotencyScope(one);
    expect(idempotencyScope({ ...one, apiKey: 2 })).not.toBe(scope);
    expect(idempotencyScope({ ...one, method: 'PATCH' })).not.toBe(scope);
    expect(idempotencyScope({ ...one, path: '/jobs' })).not.toBe(scope);
    expect(idempotencyScope({ ...one, idempotencyKey: 'K' })).not.toBe(scope);
  });

  test('refusals before the handler and server errors are not stored', () => {
    expect([200, 201, 204, 409, 422].map(isStoredStatus)).toEqual([true, true, true, true, true]);
    expect([400, 401, 403, 404, 405, 412, 413, 415, 429, 500, 503].map(isStoredStatus).some(Boolean)).toBe(false);
  });
});
