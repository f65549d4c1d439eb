/**
 * Input the databases cannot store never gets in (issue 13, defects 7 and 8): the pure checks of text,
 * dates and numbers, and where the edge applies them (paths and query parameters: 400; values of
 * writes: 422 with a pointer at the very value). Properties over arbitrary input, with an oracle each.
 */
import fc from 'fast-check';
import { project, type Projection } from '../../src/plugins/public-api/server/src/grants/projection';
import { ApiError, type ErrorObject } from '../../src/plugins/public-api/server/src/http/errors';
import { assertStorableRequest } from '../../src/plugins/public-api/server/src/http/storable-request';
import { parseInstant } from '../../src/plugins/public-api/server/src/fields/filter-kinds';
import { parseFilter } from '../../src/plugins/public-api/server/src/query/filters';
import type { FilterTarget } from '../../src/plugins/public-api/server/src/query/types';
import { MAX_INSTANT, MIN_INSTANT, parseDate, parseDateTime } from '../../src/plugins/public-api/server/src/values/calendar';
import { fitsColumn, numberColumnOf } from '../../src/plugins/public-api/server/src/values/numbers';
import { isStorableText, unstorablePaths } from '../../src/plugins/public-api/server/src/values/storable-text';
import { planAttributes } from '../../src/plugins/public-api/server/src/write/attributes';
import { unstorableProblems } from '../../src/plugins/public-api/server/src/write/storable-values';
import { attributePointer } from '../../src/plugins/public-api/server/src/write/pointer';
import { demoResources } from '../helpers/registry';

/** The oracle: PostgreSQL stores a text when it has no NUL and UTF-8 carries it unchanged. */
const storableByPostgres = (text: string) => !text.includes('\u0000') && Buffer.from(text, 'utf8').toString('utf8') === text;

/** Any UTF-16: NUL, lone surrogates and pairs in any order. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff'),
  ),
  maxLength: 8,
});

const errorOf = (fn: () => unknown): ApiError | null => {
  try {
    fn();
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
};

describe('text', () => {
  test('storable exactly when PostgreSQL stores it unchanged', () => {
    fc.assert(
      fc.property(anyText, (text) => isStorableText(text) === storableByPostgres(text)),
      { numRuns: 2000 },
    );
    expect(isStorableText('\ud83d\ude00 ü')).toBe(true);
    for (const text of ['\u0000', 'a\u0000', '\ud800', '\udc00', '\udc00\ud800', 'a\ud83d']) expect(isStorableText(text)).toBe(false);
  });

  test('every unstorable string and member name of a JSON value is found, and nothing else', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        anyText,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(anyText, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        const expected: string[] = [];
        const walk = (node: unknown, path: (string | number)[]) => {
          if (typeof node === 'string') {
            if (!storableByPostgres(node)) expected.push(JSON.stringify(path));
          } else if (Array.isArray(node)) node.forEach((item, index) => walk(item, [...path, index]));
          else if (node && typeof node === 'object') {
            for (const [name, item] of Object.entries(node)) {
              if (!storableByPostgres(name)) expected.push(JSON.stringify([...path, name]));
              else walk(item, [...path, name]);
            }
          }
        };
        walk(value, []);
        expect(unstorablePaths(value, 1000).map((path) => JSON.stringify(path))).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  test('values of a write become 422s pointing at each offending value', () => {
    expect(unstorableProblems({ ok: 'x', tags: ['a', 'b\u0000'], 'x/\ud800': 1 }, [], 10)).toEqual([
      expect.objectContaining({ status: '422', source: { pointer: attributePointer('tags', 1) }, meta: { reason: 'unstorable_text' } }),
      expect.objectContaining({ status: '422', source: { pointer: attributePointer('x/\ud800') }, meta: { reason: 'unstorable_text' } }),
    ]);
  });
});

describe('the edge refuses paths and query parameters with unstorable text', () => {
  test('property: 400 exactly when a path segment or a query name or value is unstorable; each name once, repeated ones as parameter_repeated', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('resource', 'record', 'website', 'collection'), anyText),
        fc.array(fc.tuple(fc.oneof(anyText, fc.constantFrom('sort', '\u0000')), fc.oneof(anyText, fc.constant('\u0000'))), {
          maxLength: 6,
        }),
        (params, pairs) => {
          const query = new URLSearchParams();
          for (const [name, value] of pairs) query.append(name, value);
          const error = errorOf(() => assertStorableRequest(params, query));
          const badPath = !Object.values(params).every(storableByPostgres);
          // URLSearchParams holds USVStrings (a lone surrogate becomes U+FFFD), so judge what it holds.
          const expected: { parameter: string; reason: string }[] = [];
          for (const name of new Set([...query].map(([name]) => name))) {
            const values = query.getAll(name);
            if (!storableByPostgres(name)) expected.push({ parameter: name, reason: 'unstorable_text' });
            else if (values.every(storableByPostgres)) continue;
            else expected.push({ parameter: name, reason: values.length > 1 ? 'parameter_repeated' : 'unstorable_text' });
          }
          if (!badPath && expected.length === 0) return expect(error).toBeNull();
          expect(error?.status).toBe(400);
          const found = error!.errors.map((problem: ErrorObject) => ({ source: problem.source ?? null, reason: problem.meta?.reason }));
          expect(found).toEqual([
            ...(badPath ? [{ source: null, reason: 'unstorable_text' }] : []),
            ...expected.map(({ parameter, reason }) => ({ source: { parameter }, reason })),
          ]);
          // JSON:API: the errors of a document are unique.
          const texts = error!.errors.map((problem: ErrorObject) => JSON.stringify(problem));
          expect(new Set(texts).size).toBe(texts.length);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('dates and instants: years 0001 to 9999 only', () => {
  /** The oracle: what JavaScript's own calendar says about an ISO text, in the range. */
  const dayOracle = (text: string): boolean => {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
    if (!match) return false;
    const date = new Date(`${text}T00:00:00Z`);
    return Number(match[1]) >= 1 && !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
  };

  test('property: a date is accepted exactly when it is a real day of years 0001-9999', () => {
    const text = fc.oneof(
      fc
        .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
        .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(text, (value) => (parseDate(value) !== null) === dayOracle(value)),
      { numRuns: 3000 },
    );
  });

  test('property: an accepted instant lies in the range, and every instant of the range is accepted as sent', () => {
    const offset = fc.oneof(
      fc.constant('Z'),
      fc
        .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
        .map(([sign, h, m]) => `${sign}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
    );
    const nearEdges = fc
      .tuple(
        fc.constantFrom('0000-12-31', '0001-01-01', '9999-12-31', '2027-06-01'),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        offset,
      )
      .map(([day, h, m, zone]) => `${day}T${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00${zone}`);
    fc.assert(
      fc.property(fc.oneof(nearEdges, fc.string({ maxLength: 25 })), (text) => {
        const millis = parseDateTime(text);
        if (millis !== null) {
          expect(millis).toBeGreaterThanOrEqual(MIN_INSTANT);
          expect(millis).toBeLessThanOrEqual(MAX_INSTANT);
        }
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: MIN_INSTANT, max: MAX_INSTANT }), (millis) => parseDateTime(new Date(millis).toISOString()) === millis),
      { numRuns: 2000 },
    );
  });

  test('the edges, in UTC', () => {
    expect(parseDate('0000-01-01')).toBeNull();
    expect(parseDate('0001-01-01')).toBe('0001-01-01');
    expect(parseDate('9999-12-31')).toBe('9999-12-31');
    expect(parseDate('10000-01-01')).toBeNull();
    expect(parseDateTime('0001-01-01T00:00:00Z')).toBe(MIN_INSTANT);
    expect(parseDateTime('0001-01-01T00:30:00+01:00')).toBeNull();
    expect(parseDateTime('0000-12-31T23:30:00-01:00')).toBe(MIN_INSTANT + 30 * 60_000);
    expect(parseDateTime('9999-12-31T23:59:59.999Z')).toBe(MAX_INSTANT);
    expect(parseDateTime('9999-12-31T23:30:00-01:00')).toBeNull();
    expect(parseInstant('0000-01-01')).toBeNull();
    expect(parseInstant('0001-01-01')).toBe(MIN_INSTANT);
  });

  test('filters refuse dates out of the range with 400 on the parameter, for every operator', () => {
    for (const [type, value] of [
      ['date', '0000-01-01'],
      ['datetime', '0000-01-01'],
      ['datetime', '0001-01-01T00:30:00+01:00'],
      ['datetime', '9999-12-31T23:30:00-01:00'],
    ] as const) {
      for (const op of ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in']) {
        const error = errorOf(() => parseFilter(`filter[day][${op}]`, value, new Map([['day', { type }]])));
        expect(error?.errors).toEqual([
          expect.objectContaining({ status: '400', source: { parameter: `filter[day][${op}]` }, meta: { reason: 'filter_value_invalid' } }),
        ]);
      }
    }
  });
});

describe('numbers fit their column', () => {
  test('property: a filter number is accepted exactly when its column holds it', () => {
    const columns = ['integer', 'biginteger', 'decimal', 'float'];
    const text = fc.oneof(
      fc.constantFrom(
        '2147483647',
        '2147483648',
        '-2147483648',
        '-2147483649',
        '1.5',
        '9007199254740991',
        '9007199254740993',
        '1e308',
        '1e309',
        '0',
        '-0',
      ),
      fc.double({ noNaN: true }).map(String),
      fc.integer().map(String),
    );
    fc.assert(
      fc.property(fc.constantFrom(...columns), text, (attributeType, value) => {
        const target: FilterTarget = { type: 'number', column: numberColumnOf(attributeType) };
        const accepted = errorOf(() => parseFilter('filter[n]', value, new Map([['n', target]]))) === null;
        const number = Number(value);
        const holds =
          attributeType === 'integer'
            ? Number.isInteger(number) && number >= -(2 ** 31) && number < 2 ** 31
            : attributeType === 'biginteger'
              ? Number.isSafeInteger(number)
              : Number.isFinite(number);
        expect(accepted).toBe(/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(value) && holds);
      }),
      { numRuns: 2000 },
    );
    expect(fitsColumn(numberColumnOf('integer'), 2 ** 31)).toBe(false);
  });
});

describe('writes: every writable field of every resource refuses unstorable values with a pointer at them', () => {
  const resources = demoResources();
  const resolveTarget = (_from: unknown, uid: string) =>
    resources.find((candidate) => candidate.uid === uid && candidate.sourceType === 'native') ?? null;

  const projectionOf = (slug: string): Projection => {
    const resource = resources.find((candidate) => candidate.id === slug)!;
    const grants = Object.fromEntries(
      resources.map((r) => [
        r.id,
        { actions: ['read', 'create', 'update'], read: r.fields.map((f) => f.key), write: r.fields.map((f) => f.key) },
      ]),
    );
    return project({ resources: grants as never, commands: [], origins: [] }, resource, resolveTarget as never);
  };

  /** A value of the field's own shape, with the text at the place a value of that shape carries it. */
  const shaped = (type: string, text: string): { value: unknown; at: (string | number)[] } => {
    switch (type) {
      case 'tags':
        return { value: ['fine', text], at: [1] };
      case 'richtext':
        return {
          value: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] },
          at: ['content', 0, 'content', 0, 'text'],
        };
      case 'relations':
      case 'images':
      case 'files':
        return { value: [{ id: text }], at: [0, 'id'] };
      case 'relation':
        return { value: { slug: text }, at: ['slug'] };
      default:
        return { value: text, at: [] };
    }
  };

  test.each(demoResources().map((resource) => resource.id))('%s', (id) => {
    const projection = projectionOf(id);
    for (const field of projection.writable) {
      for (const text of ['a\u0000b', 'x\ud800', '\udc00']) {
        const { value, at } = shaped(field.type, text);
        const plan = planAttributes(projection, { [field.key]: value });
        expect(plan.fields).toEqual([]);
        expect(plan.problems).toEqual([
          expect.objectContaining({
            status: '422',
            source: { pointer: attributePointer(field.key, ...at) },
            meta: { reason: 'unstorable_text' },
          }),
        ]);
      }
    }
  });
});
