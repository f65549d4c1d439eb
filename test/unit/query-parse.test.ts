/**
 * parseCollectionQuery / parseRecordQuery: every rule of contract sections 5 and 6, and totality.
 */
import fc from 'fast-check';
import { ApiError, isApiError, type ErrorObject } from '../../src/plugins/public-api/server/src/http/errors';
import { SYSTEM_FILTER_TARGETS, SYSTEM_SORT_KEYS } from '../../src/plugins/public-api/server/src/fields/system-keys';
import { DEFAULT_LIMIT, MAX_LOCALES, parseCollectionQuery, parseRecordQuery } from '../../src/plugins/public-api/server/src/query/parse';
import type { FilterTarget, IncludeTree, QueryVocabulary, RecordTypeTree } from '../../src/plugins/public-api/server/src/query/types';

const READABLE_SCALARS: Record<string, FilterTarget> = {
  title: { type: 'string' },
  summary: { type: 'text' },
  price: { type: 'number' },
  free: { type: 'boolean' },
  day: { type: 'date' },
  startsAt: { type: 'datetime' },
  status: { type: 'select', options: ['planned', 'cancelled', 'sold-out'] },
};

/** Fields the events resource has but this key cannot read (or cannot sort/filter): never to be named. */
const HIDDEN_FIELDS = ['internalNotes', 'cost', 'body', 'gallery', 'tags'];

const buildings: IncludeTree = new Map();
const events = new Map<string, IncludeTree>();
const festivals: IncludeTree = new Map([['events', events]]);
events.set('venue', buildings);
events.set('festival', festivals);
events.set('related', events);

/** The same levels as `fields[type]` sees them: types and readable fields. */
const buildingRecords: RecordTypeTree = { type: 'buildings', fields: new Set(['name', 'city']), include: new Map() };
const eventRecords: RecordTypeTree = {
  type: 'events',
  fields: new Set([...Object.keys(READABLE_SCALARS), 'venue', 'festival', 'related', 'performers']),
  include: new Map(),
};
const festivalRecords: RecordTypeTree = {
  type: 'festivals',
  fields: new Set(['name', 'events']),
  include: new Map([['events', eventRecords]]),
};
(eventRecords.include as Map<string, RecordTypeTree>).set('venue', buildingRecords);
(eventRecords.include as Map<string, RecordTypeTree>).set('festival', festivalRecords);
(eventRecords.include as Map<string, RecordTypeTree>).set('related', eventRecords);

const eventsVocabulary = (overrides: Partial<QueryVocabulary> = {}): QueryVocabulary => ({
  sortable: new Set([...Object.keys(READABLE_SCALARS), ...SYSTEM_SORT_KEYS]),
  filterable: new Map<string, FilterTarget>([
    ...Object.entries(READABLE_SCALARS),
    ['venue', { type: 'relation' }],
    ['performers', { type: 'relations' }],
    ...SYSTEM_FILTER_TARGETS,
  ]),
  include: events,
  records: eventRecords,
  locales: ['en', 'fr', 'pt-BR'],
  ...overrides,
});

const query = (text: string) => new URLSearchParams(text);

/** The error objects of the ApiError `run` throws; fails the test when it returns or throws anything else. */
const problemsOf = (run: () => unknown): ErrorObject[] => {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    if (isApiError(error)) return error.errors;
    throw error;
  }
  throw new Error(`Expected an ApiError, got ${JSON.stringify(result)}`);
};

const onlyProblem = (run: () => unknown): ErrorObject => {
  const problems = problemsOf(run);
  expect(problems).toHaveLength(1);
  return problems[0]!;
};

const vocabulary = eventsVocabulary();
const parse = (text: string, vocab: QueryVocabulary = vocabulary) => parseCollectionQuery(query(text), vocab);
const problem = (text: string, vocab: QueryVocabulary = vocabulary) => onlyProblem(() => parse(text, vocab));

/** The 400 shape every rejection has. */
const expectRejection = (error: ErrorObject, parameter: string, reason: string) => {
  expect(error).toMatchObject({ status: '400', code: 'bad_request', title: 'Bad Request', source: { parameter }, meta: { reason } });
};

describe('defaults', () => {
  it('reads an empty query as the first page of 25 in the default order', () => {
    expect(parse('')).toEqual({
      limit: DEFAULT_LIMIT,
      cursor: null,
      sort: [{ key: 'sort', direction: 'asc' }],
      locale: null,
      fallback: [],
      include: [],
      filters: [],
      fields: new Map(),
      status: 'published',
    });
  });

  it('takes the default order from the vocabulary when it has one', () => {
    const vocab = eventsVocabulary({ defaultSort: [{ key: 'startsAt', direction: 'desc' }] });
    expect(parse('', vocab).sort).toEqual([{ key: 'startsAt', direction: 'desc' }]);
  });
});

describe('limit', () => {
  it.each([
    ['1', 1],
    ['25', 25],
    ['100', 100],
  ])('accepts %s', (text, limit) => {
    expect(parse(`limit=${text}`).limit).toBe(limit);
  });

  it.each(['0', '101', '1.5', 'abc', '', '-1', '+5', '05', '1e1', ' 5', '5 ', '0x10', '1000', 'Infinity'])('rejects %j', (text) => {
    expectRejection(problem(`limit=${encodeURIComponent(text)}`), 'limit', 'limit_invalid');
  });

  it('rejects a repeated limit, even with the same value', () => {
    expectRejection(problem('limit=5&limit=5'), 'limit', 'parameter_repeated');
  });
});

describe('sort', () => {
  it('reads keys in order, with - for descending', () => {
    expect(parse('sort=-startsAt,title,createdAt').sort).toEqual([
      { key: 'startsAt', direction: 'desc' },
      { key: 'title', direction: 'asc' },
      { key: 'createdAt', direction: 'asc' },
    ]);
  });

  it('accepts every system value', () => {
    expect(parse('sort=slug,-sort,publishedAt,createdAt,updatedAt').sort.map((term) => term.key)).toEqual([
      'slug',
      'sort',
      'publishedAt',
      'createdAt',
      'updatedAt',
    ]);
  });

  it('answers an unknown, an unreadable and a non-scalar key identically, echoing only what was sent', () => {
    const detailFor = (key: string) => {
      const error = problem(`sort=${key}`);
      expectRejection(error, 'sort', 'sort_invalid');
      return error.detail.replace(key, '<key>');
    };
    const details = ['doesNotExist', ...HIDDEN_FIELDS, 'venue', 'performers'].map(detailFor);
    expect(new Set(details).size).toBe(1);
    expect(details[0]).toBe("'<key>' is not a sortable key.");
  });

  it.each(['title,-title', 'price,title,price'])('rejects a repeated key in %j', (text) => {
    expectRejection(problem(`sort=${text}`), 'sort', 'sort_repeated');
  });

  it.each(['', ',', 'title,', '-', '--title', '+title', ' title', 'Title', 'id'])('rejects %j', (text) => {
    expectRejection(problem(`sort=${encodeURIComponent(text)}`), 'sort', 'sort_invalid');
  });

  it('never names a field the caller did not send', () => {
    for (const error of problemsOf(() => parse('sort=nope&filter[nope]=1&include=nope'))) {
      for (const hidden of [...HIDDEN_FIELDS, ...Object.keys(READABLE_SCALARS)]) expect(error.detail).not.toContain(hidden);
    }
  });
});

describe('locale', () => {
  it('accepts a configured locale, matched without regard to case, and answers it as configured', () => {
    expect(parse('locale=fr').locale).toBe('fr');
    expect(parse('locale=PT-br').locale).toBe('pt-BR');
  });

  it.each(['de', '', 'en-US', 'e'])('rejects %j, which is not configured', (text) => {
    const error = problem(`locale=${text}`);
    expectRejection(error, 'locale', 'locale_unknown');
    expect(error.detail).toContain('en, fr, pt-BR');
  });

  it('is ignored by a resource that is not localized', () => {
    expect(parse('locale=xx', eventsVocabulary({ locales: null })).locale).toBeNull();
  });

  it('is still refused twice on a resource that is not localized', () => {
    expectRejection(problem('locale=en&locale=fr', eventsVocabulary({ locales: null })), 'locale', 'parameter_repeated');
  });

  it('takes an ordered fallback list: the first code, then the rest in order (contract section 15)', () => {
    const parsed = parse('locale=PT-br,en,fr');
    expect([parsed.locale, parsed.fallback]).toEqual(['pt-BR', ['en', 'fr']]);
    expect(parse('locale=fr').fallback).toEqual([]);
    const single = parseRecordQuery(query('locale=fr,en'), vocabulary);
    expect([single.locale, single.fallback]).toEqual(['fr', ['en']]);
  });

  it.each([
    ['en,xx', 'locale_unknown'],
    ['en,', 'locale_unknown'],
    [',en', 'locale_unknown'],
    ['en,fr,EN', 'locale_repeated'],
    ['en,fr,pt-BR,en,fr,pt-BR', 'locale_list_too_long'],
  ])('refuses the list %j (%s)', (text, reason) => {
    expectRejection(problem(`locale=${text}`), 'locale', reason);
  });

  it(`accepts at most ${MAX_LOCALES} codes`, () => {
    const codes = ['a', 'b', 'c', 'd', 'e', 'f'];
    const vocab = eventsVocabulary({ locales: codes });
    expect(parse(`locale=${codes.slice(0, MAX_LOCALES).join(',')}`, vocab).fallback).toHaveLength(MAX_LOCALES - 1);
    expectRejection(problem(`locale=${codes.slice(0, MAX_LOCALES + 1).join(',')}`, vocab), 'locale', 'locale_list_too_long');
  });
});

describe('include', () => {
  it('builds one tree from dot paths, sharing prefixes', () => {
    expect(parse('include=festival.events.venue,venue,festival').include).toEqual([
      { field: 'festival', include: [{ field: 'events', include: [{ field: 'venue', include: [] }] }] },
      { field: 'venue', include: [] },
    ]);
  });

  it('follows cycles up to three levels', () => {
    expect(parse('include=related.related.related').include).toEqual([
      { field: 'related', include: [{ field: 'related', include: [{ field: 'related', include: [] }] }] },
    ]);
  });

  it('rejects a fourth level', () => {
    expectRejection(problem('include=related.related.related.venue'), 'include', 'include_too_deep');
  });

  it('accepts 10 paths and rejects 11', () => {
    const paths = [
      'venue',
      'festival',
      'related',
      'festival.events',
      'related.venue',
      'related.festival',
      'related.related',
      'festival.events.venue',
      'festival.events.festival',
      'related.related.venue',
    ];
    expect(() => parse(`include=${paths.join(',')}`)).not.toThrow();
    expectRejection(problem(`include=${[...paths, 'related.related.related'].join(',')}`), 'include', 'include_limit');
  });

  it('answers unknown, unreadable, non-relation and prototype names identically', () => {
    const details = ['nope', 'title', 'internalNotes', 'constructor', '__proto__', 'venue.constructor', 'toString'].map((path) => {
      const error = problem(`include=${path}`);
      expectRejection(error, 'include', 'include_invalid');
      return error.detail.replace(path, '<path>');
    });
    expect(new Set(details).size).toBe(1);
  });

  it.each(['', ',', 'venue,', '.venue', 'venue.', 'festival..events'])('rejects %j', (text) => {
    expectRejection(problem(`include=${text}`), 'include', 'include_invalid');
  });

  it('rejects a path given twice', () => {
    expectRejection(problem('include=venue,festival,venue'), 'include', 'include_repeated');
  });
});

describe('filter', () => {
  const conditionOf = (text: string) => {
    const { filters } = parse(text);
    expect(filters).toHaveLength(1);
    return filters[0]!;
  };

  it('reads filter[field]=value as equality, keeping the parameter as sent', () => {
    expect(conditionOf('filter[title]=Jazz%20night')).toEqual({
      parameter: 'filter[title]',
      field: 'title',
      type: 'string',
      op: 'eq',
      value: 'Jazz night',
    });
  });

  it('types values by field type', () => {
    expect(conditionOf('filter[price][gte]=12.5').value).toBe(12.5);
    expect(conditionOf('filter[price][lt]=-3e2').value).toBe(-300);
    expect(conditionOf('filter[free]=true').value).toBe(true);
    expect(conditionOf('filter[free][ne]=false').value).toBe(false);
    expect(conditionOf('filter[day][lte]=2024-02-29').value).toBe('2024-02-29');
    expect(conditionOf('filter[status]=sold-out').value).toBe('sold-out');
    expect(conditionOf('filter[venue]=town-hall').value).toBe('town-hall');
    expect(conditionOf('filter[title]=').value).toBe('');
  });

  it('reads datetimes as instants, whatever the offset', () => {
    const utc = conditionOf('filter[startsAt][gt]=2024-06-01T10:00:00Z').value as number;
    expect(utc).toBe(Date.UTC(2024, 5, 1, 10));
    expect(conditionOf('filter[startsAt][gt]=2024-06-01T12:00:00%2B02:00').value).toBe(utc);
    expect(conditionOf('filter[startsAt][gt]=2024-06-01T05:30-04:30').value).toBe(utc);
    expect(conditionOf('filter[createdAt][gte]=2024-06-01').value).toBe(Date.UTC(2024, 5, 1));
    expect(conditionOf('filter[updatedAt][lt]=2024-06-01T10:00:00.123456Z').value).toBe(utc + 123);
  });

  it('reads in as a typed list and null as a boolean', () => {
    expect(conditionOf('filter[price][in]=1,2.5,3')).toMatchObject({ op: 'in', value: [1, 2.5, 3] });
    expect(conditionOf('filter[status][in]=planned,cancelled')).toMatchObject({ op: 'in', value: ['planned', 'cancelled'] });
    expect(conditionOf('filter[venue][null]=true')).toMatchObject({ op: 'null', value: true });
    expect(conditionOf('filter[summary][null]=false')).toMatchObject({ op: 'null', value: false });
  });

  it('accepts contains and startsWith on text and on the slug', () => {
    expect(conditionOf('filter[summary][contains]=jazz')).toMatchObject({ op: 'contains', value: 'jazz' });
    expect(conditionOf('filter[slug][startsWith]=summer-')).toMatchObject({ op: 'startsWith', value: 'summer-' });
  });

  it.each([
    ['filter[price]=abc', 'filter[price]'],
    ['filter[price]=', 'filter[price]'],
    ['filter[price]=1,5', 'filter[price]'],
    ['filter[price]=0x10', 'filter[price]'],
    ['filter[price]=NaN', 'filter[price]'],
    ['filter[price]=Infinity', 'filter[price]'],
    ['filter[price]=1e400', 'filter[price]'],
    ['filter[price]=%201', 'filter[price]'],
    ['filter[free]=yes', 'filter[free]'],
    ['filter[free]=TRUE', 'filter[free]'],
    ['filter[day]=2024-02-30', 'filter[day]'],
    ['filter[day]=2023-02-29', 'filter[day]'],
    ['filter[day]=2024-6-1', 'filter[day]'],
    ['filter[day]=2024-06-01T00:00:00Z', 'filter[day]'],
    ['filter[startsAt]=2024-06-01T10:00:00', 'filter[startsAt]'],
    ['filter[startsAt]=2024-06-01T24:00:00Z', 'filter[startsAt]'],
    ['filter[startsAt]=2024-13-01T10:00:00Z', 'filter[startsAt]'],
    ['filter[startsAt]=yesterday', 'filter[startsAt]'],
    ['filter[status]=Planned', 'filter[status]'],
    ['filter[status][in]=planned,unknown', 'filter[status][in]'],
    ['filter[price][in]=', 'filter[price][in]'],
    ['filter[title][in]=a,,b', 'filter[title][in]'],
    ['filter[title][in]=a,', 'filter[title][in]'],
    ['filter[venue]=', 'filter[venue]'],
    ['filter[venue][null]=yes', 'filter[venue][null]'],
    ['filter[title][contains]=', 'filter[title][contains]'],
  ])('rejects the value of %s', (text, parameter) => {
    expectRejection(problem(text), parameter, 'filter_value_invalid');
  });

  it('allows 100 values in a list and rejects 101', () => {
    const values = Array.from({ length: 100 }, (_, index) => String(index));
    expect(conditionOf(`filter[price][in]=${values.join(',')}`).value).toHaveLength(100);
    expectRejection(problem(`filter[price][in]=${[...values, '100'].join(',')}`), 'filter[price][in]', 'filter_value_invalid');
  });

  it('allows values of 1000 characters and rejects longer ones', () => {
    expect(conditionOf(`filter[title]=${'x'.repeat(1000)}`).value).toHaveLength(1000);
    expectRejection(problem(`filter[title]=${'x'.repeat(1001)}`), 'filter[title]', 'filter_value_too_long');
  });

  it.each([
    ['filter[price][contains]=1', 'filter[price][contains]'],
    ['filter[title][gt]=a', 'filter[title][gt]'],
    ['filter[status][startsWith]=pl', 'filter[status][startsWith]'],
    ['filter[free][lt]=true', 'filter[free][lt]'],
    ['filter[venue][gte]=a', 'filter[venue][gte]'],
    ['filter[price][like]=1', 'filter[price][like]'],
    ['filter[price][EQ]=1', 'filter[price][EQ]'],
  ])('rejects the operator of %s', (text, parameter) => {
    expectRejection(problem(text), parameter, 'filter_operator_invalid');
  });

  it.each(['filter', 'filter[]', 'filter[price][gte][x]', 'filter[price]x', 'filter[[price]]', 'filter[price][]'])(
    'rejects the malformed parameter %s',
    (name) => {
      expectRejection(problem(`${encodeURIComponent(name)}=1`), name, 'filter_invalid');
    },
  );

  it('answers an unknown and an unreadable field identically', () => {
    const details = ['nope', ...HIDDEN_FIELDS, 'id'].map((field) => {
      const error = problem(`filter[${field}]=1`);
      expectRejection(error, `filter[${field}]`, 'filter_field_invalid');
      return error.detail.replace(field, '<field>');
    });
    expect(new Set(details).size).toBe(1);
  });

  it('treats filter[a] and filter[a][eq] as one condition given twice', () => {
    expectRejection(problem('filter[price]=1&filter[price][eq]=2'), 'filter[price][eq]', 'filter_repeated');
  });

  it('combines different operators on one field', () => {
    expect(parse('filter[price][gte]=1&filter[price][lte]=9').filters.map((condition) => condition.op)).toEqual(['gte', 'lte']);
  });

  it('allows 10 conditions and names the 11th', () => {
    const ten = [
      'title=a',
      'summary=b',
      'price=1',
      'free=true',
      'day=2024-01-01',
      'startsAt=2024-01-01',
      'status=planned',
      'venue=x',
      'performers=y',
      'slug=z',
    ].map((part) => `filter[${part.replace('=', ']=')}`);
    expect(parse(ten.join('&')).filters).toHaveLength(10);
    expectRejection(problem([...ten, 'filter[createdAt][gte]=2024-01-01'].join('&')), 'filter[createdAt][gte]', 'filter_limit');
  });
});

describe('other parameters', () => {
  it.each(['page', 'page[size]', 'fieldset[events]', 'offset', 'LIMIT', 'api_key', ''])('rejects %j, naming it', (name) => {
    const error = problem(`${encodeURIComponent(name)}=1`);
    expectRejection(error, name, 'unknown_parameter');
  });

  it('reports every problem at once, in the order sent', () => {
    const problems = problemsOf(() => parse('sort=nope&limit=0&page=2&filter[price]=x&sort=title'));
    expect(problems.map((error) => [(error.source as { parameter: string }).parameter, error.meta?.reason])).toEqual([
      ['sort', 'parameter_repeated'],
      ['limit', 'limit_invalid'],
      ['page', 'unknown_parameter'],
      ['filter[price]', 'filter_value_invalid'],
    ]);
  });

  it('keeps the cursor as sent, and rejects an empty one', () => {
    expect(parse('cursor=abc_-').cursor).toBe('abc_-');
    expectRejection(problem('cursor='), 'cursor', 'cursor_invalid');
    expectRejection(problem(`cursor=${'a'.repeat(5000)}`), 'cursor', 'cursor_invalid');
  });
});

describe('status (contract section 15)', () => {
  const record = (text: string) => parseRecordQuery(query(text), vocabulary);

  it('is published unless draft is asked for, on collections, records and singletons alike', () => {
    expect(parse('').status).toBe('published');
    expect(parse('status=published').status).toBe('published');
    expect(parse('status=draft&limit=5').status).toBe('draft');
    expect(record('status=draft&include=venue').status).toBe('draft');
    expect(record('status=published').status).toBe('published');
  });

  it.each(['Draft', 'DRAFT', 'drafts', 'preview', '', 'draft,published', ' draft'])('rejects status=%j on status', (value) => {
    const text = `status=${encodeURIComponent(value)}`;
    expectRejection(problem(text), 'status', 'status_invalid');
    expectRejection(
      onlyProblem(() => record(text)),
      'status',
      'status_invalid',
    );
  });

  it('rejects status given twice', () => {
    expectRejection(problem('status=draft&status=draft'), 'status', 'parameter_repeated');
  });

  it('reports a bad status with the other problems of the query', () => {
    const errors = problemsOf(() => parse('status=x&limit=0'));
    expect(errors.map((error) => (error.source as { parameter: string }).parameter)).toEqual(['status', 'limit']);
  });
});

describe('single-record reads', () => {
  const record = (text: string) => parseRecordQuery(query(text), vocabulary);

  it('accepts locale, include and fields[type]', () => {
    expect(record('locale=en&include=venue')).toEqual({
      locale: 'en',
      fallback: [],
      include: [{ field: 'venue', include: [] }],
      fields: new Map(),
      status: 'published',
    });
    expect(record('')).toEqual({ locale: null, fallback: [], include: [], fields: new Map(), status: 'published' });
    expect(record('fields[events]=title&include=venue&fields[buildings]=').fields).toEqual(
      new Map([
        ['events', new Set(['title'])],
        ['buildings', new Set()],
      ]),
    );
  });

  it.each(['limit=5', 'sort=title', 'cursor=x', 'filter[title]=a', 'page=1'])('rejects %s, naming it', (text) => {
    const name = decodeURIComponent(text.split('=')[0]!);
    expectRejection(
      onlyProblem(() => record(text)),
      name,
      'unknown_parameter',
    );
  });

  it('applies the same include and locale rules', () => {
    expectRejection(
      onlyProblem(() => record('include=title')),
      'include',
      'include_invalid',
    );
    expectRejection(
      onlyProblem(() => record('locale=xx')),
      'locale',
      'locale_unknown',
    );
    expectRejection(
      onlyProblem(() => record('include=venue&include=venue')),
      'include',
      'parameter_repeated',
    );
  });
});

describe('valid queries', () => {
  const sortKeys = [...vocabulary.sortable];
  const sortTerms = fc
    .uniqueArray(fc.constantFrom(...sortKeys), { minLength: 1, maxLength: 5 })
    .chain((keys) =>
      fc.tuple(...keys.map((key) => fc.constantFrom('asc' as const, 'desc' as const).map((direction) => ({ key, direction })))),
    );
  const includePaths = fc.uniqueArray(
    fc.constantFrom('venue', 'festival', 'festival.events', 'festival.events.venue', 'related.festival', 'related.related.venue'),
    { minLength: 1, maxLength: 6 },
  );
  const filters = fc.uniqueArray(
    fc.constantFrom(
      ['filter[title][contains]', 'jazz', 'jazz'],
      ['filter[price][gte]', '10', 10],
      ['filter[price][lt]', '99.5', 99.5],
      ['filter[free]', 'false', false],
      ['filter[day][in]', '2024-01-01,2024-12-31', ['2024-01-01', '2024-12-31']],
      ['filter[startsAt][gte]', '2024-01-01T00:00:00+01:00', Date.UTC(2023, 11, 31, 23)],
      ['filter[status][ne]', 'cancelled', 'cancelled'],
      ['filter[venue][null]', 'true', true],
      ['filter[slug][startsWith]', 'a', 'a'],
    ),
    { maxLength: 9, selector: ([name]) => name },
  );
  const valid = fc.record({
    limit: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
    sort: fc.option(sortTerms, { nil: undefined }),
    locale: fc.option(fc.constantFrom('en', 'FR', 'pt-br'), { nil: undefined }),
    include: fc.option(includePaths, { nil: undefined }),
    filters,
  });

  it('parses every valid combination to exactly what was asked', () => {
    fc.assert(
      fc.property(valid, (asked) => {
        const params = new URLSearchParams();
        if (asked.limit !== undefined) params.set('limit', String(asked.limit));
        if (asked.sort) params.set('sort', asked.sort.map((term) => `${term.direction === 'desc' ? '-' : ''}${term.key}`).join(','));
        if (asked.locale) params.set('locale', asked.locale);
        if (asked.include) params.set('include', asked.include.join(','));
        for (const [name, text] of asked.filters) params.set(name as string, text as string);
        const parsed = parseCollectionQuery(new URLSearchParams(params.toString()), vocabulary);
        expect(parsed.limit).toBe(asked.limit ?? 25);
        expect(parsed.sort).toEqual(asked.sort ?? [{ key: 'sort', direction: 'asc' }]);
        expect(parsed.locale).toBe(asked.locale ? { en: 'en', FR: 'fr', 'pt-br': 'pt-BR' }[asked.locale] : null);
        const paths = (specs: typeof parsed.include, prefix = ''): string[] =>
          specs.flatMap((spec) => [`${prefix}${spec.field}`, ...paths(spec.include, `${prefix}${spec.field}.`)]);
        const prefixes = (asked.include ?? []).flatMap((path) =>
          path.split('.').map((_, index, segments) => segments.slice(0, index + 1).join('.')),
        );
        expect(new Set(paths(parsed.include))).toEqual(new Set(prefixes));
        expect(parsed.filters.map((condition) => [condition.parameter, condition.value])).toEqual(
          asked.filters.map(([name, , value]) => [name, value]),
        );
      }),
    );
  });
});

describe('totality', () => {
  const knownNames = [
    'limit',
    'cursor',
    'sort',
    'locale',
    'include',
    'filter',
    'filter[price]',
    'filter[title][contains]',
    'filter[startsAt][gte]',
    'filter[status][in]',
    'filter[venue][null]',
    'filter[nope][eq]',
    'filter[price][x][y]',
    'fields',
    'fields[events]',
    'fields[buildings]',
    'fields[festivals]',
    'fields[nope]',
    'fields[events][title]',
  ];
  const knownValues = [
    '',
    '1',
    '100',
    '101',
    '-title',
    'title,-price',
    'venue,festival.events',
    'title,venue',
    'name,events',
    'en',
    'true',
    'a,b',
    '2024-01-01',
    '2024-01-01T00:00:00Z',
    'planned',
    ',',
    '.',
    '-',
    '__proto__',
    'constructor',
  ];
  const name = fc.oneof(fc.constantFrom(...knownNames), fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
  const value = fc.oneof(fc.constantFrom(...knownValues), fc.string(), fc.string({ unit: 'binary' }), fc.string({ maxLength: 1200 }));
  const pairs = fc.array(fc.tuple(name, value), { maxLength: 16 });

  const judge = (params: URLSearchParams, run: () => unknown) => {
    const sent = new Set(params.keys());
    try {
      run();
      return true;
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      const apiError = error as ApiError;
      expect(apiError.status).toBe(400);
      expect(apiError.errors.length).toBeGreaterThan(0);
      for (const object of apiError.errors) {
        expect(object).toMatchObject({ status: '400', code: 'bad_request' });
        expect(typeof object.detail).toBe('string');
        expect(typeof object.meta?.reason).toBe('string');
        expect(sent.has((object.source as { parameter: string }).parameter)).toBe(true);
      }
      return false;
    }
  };

  it('returns a ParsedQuery or throws one ApiError 400 naming sent parameters, for any collection query', () => {
    fc.assert(
      fc.property(pairs, (entries) => {
        const params = new URLSearchParams(entries);
        let parsed: ReturnType<typeof parseCollectionQuery> | undefined;
        if (judge(params, () => (parsed = parseCollectionQuery(params, vocabulary)))) {
          expect(parsed!.limit).toBeGreaterThanOrEqual(1);
          expect(parsed!.limit).toBeLessThanOrEqual(100);
          expect(parsed!.filters.length).toBeLessThanOrEqual(10);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('does the same for the raw query strings of any URL', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        const params = new URLSearchParams(text);
        judge(params, () => parseCollectionQuery(params, vocabulary));
        judge(params, () => parseRecordQuery(params, vocabulary));
      }),
      { numRuns: 2000 },
    );
  });

  it('does the same for single-record queries', () => {
    fc.assert(
      fc.property(pairs, (entries) => {
        const params = new URLSearchParams(entries);
        judge(params, () => parseRecordQuery(params, vocabulary));
      }),
      { numRuns: 1000 },
    );
  });

  it('answers any filter on a field outside the vocabulary the same way', () => {
    const reference = problem('filter[nope]=1').detail.replace('nope', '<field>');
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,30}$/), (field) => {
        fc.pre(!vocabulary.filterable.has(field));
        const error = problem(`filter[${field}]=1`);
        expect(error.detail.replace(field, '<field>')).toBe(reference);
      }),
    );
  });
});
