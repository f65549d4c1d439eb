/**
 * Sparse fieldsets (contract section 14): the `fields[type]` parser, the types a read returns, the
 * projection a fieldset cuts, and properties over random grants and random field lists on the
 * application's own content types.
 */
import fc from 'fast-check';
import { recordTypeTree, shownProjection } from '../../src/plugins/public-api/server/src/grants/fieldset-projection';
import { includeTree, project, queryVocabulary, type Projection } from '../../src/plugins/public-api/server/src/grants/projection';
import { resolveGrants } from '../../src/plugins/public-api/server/src/grants/resolve';
import { targetResolver } from '../../src/plugins/public-api/server/src/grants/targets';
import type { KeyGrants } from '../../src/plugins/public-api/server/src/grants/types';
import { ApiError, isApiError, type ErrorObject } from '../../src/plugins/public-api/server/src/http/errors';
import {
  MAX_FIELDSET_NAMES,
  parseFieldset,
  returnedTypes,
  type ReturnedTypes,
} from '../../src/plugins/public-api/server/src/query/fields-parameter';
import { parseCollectionQuery, parseRecordQuery } from '../../src/plugins/public-api/server/src/query/parse';
import type { IncludeSpec, QueryVocabulary, RecordTypeTree } from '../../src/plugins/public-api/server/src/query/types';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';
import { demoResources } from '../helpers/registry';

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

const reasonOf = (error: ErrorObject) => error.meta?.reason;

// ---------------------------------------------------------------------------------------------------------
// parseFieldset on its own
// ---------------------------------------------------------------------------------------------------------

const RETURNED: ReturnedTypes = new Map([
  ['events', new Set(['title', 'venue', 'price'])],
  ['buildings', new Set(['name'])],
]);

describe('parseFieldset', () => {
  const parse = (name: string, text: string, returned: ReturnedTypes | null = RETURNED) => parseFieldset(name, text, returned);
  const refusal = (name: string, text: string, returned: ReturnedTypes | null = RETURNED) => onlyProblem(() => parse(name, text, returned));

  it('reads the type and the names', () => {
    expect(parse('fields[events]', 'title,venue')).toEqual({ type: 'events', names: new Set(['title', 'venue']) });
    expect(parse('fields[buildings]', 'name')).toEqual({ type: 'buildings', names: new Set(['name']) });
  });

  it('reads an empty value as no fields at all', () => {
    expect(parse('fields[events]', '')).toEqual({ type: 'events', names: new Set() });
  });

  it.each(['fields', 'fields[]', 'fields[events][title]', 'fields[events', 'fields[events]x', 'fields[[events]]', 'fields[ev[en]ts]'])(
    'refuses the parameter name %s as not a fieldset',
    (name) => {
      const error = refusal(name, 'title');
      expect(error).toMatchObject({ status: '400', code: 'bad_request', source: { parameter: name }, meta: { reason: 'fields_invalid' } });
    },
  );

  it.each([',', 'title,', ',title', 'title,,venue'])('refuses an empty name in %j', (text) => {
    expect(reasonOf(refusal('fields[events]', text))).toBe('fields_invalid');
  });

  it('refuses a name given twice', () => {
    const error = refusal('fields[events]', 'title,venue,title');
    expect(error).toMatchObject({ source: { parameter: 'fields[events]' }, meta: { reason: 'fields_repeated' } });
    expect(error.detail).toContain("'title'");
  });

  it(`refuses more than ${MAX_FIELDSET_NAMES} names before looking at any`, () => {
    const names = Array.from({ length: MAX_FIELDSET_NAMES + 1 }, (_, index) => `f${index}`).join(',');
    expect(reasonOf(refusal('fields[events]', names))).toBe('fields_limit');
    // Exactly the bound is judged name by name (here: unknown names).
    const atBound = Array.from({ length: MAX_FIELDSET_NAMES }, (_, index) => `f${index}`).join(',');
    expect(reasonOf(refusal('fields[events]', atBound))).toBe('fields_field_invalid');
  });

  it('refuses a type the read does not return, naming those it does', () => {
    const error = refusal('fields[festivals]', 'name');
    expect(error).toMatchObject({ source: { parameter: 'fields[festivals]' }, meta: { reason: 'fields_type_invalid' } });
    expect(error.detail).toBe("'festivals' is not a type of the records this request returns (events, buildings).");
  });

  it('answers an unreadable field and an unknown one alike', () => {
    const unknown = refusal('fields[events]', 'nosuch');
    expect(unknown).toMatchObject({ meta: { reason: 'fields_field_invalid' } });
    expect(unknown.detail).toBe("'nosuch' is not a readable field of events records.");
    // `cost` may exist on events: nothing in the answer says so.
    const unreadable = refusal('fields[events]', 'cost');
    expect({ ...unreadable, detail: unreadable.detail.replace('cost', 'nosuch') }).toEqual(unknown);
  });

  it('judges only the syntax when the types are unknown (include was refused)', () => {
    expect(parse('fields[anything]', 'a,b', null)).toEqual({ type: 'anything', names: new Set(['a', 'b']) });
    expect(reasonOf(refusal('fields[anything]', 'a,a', null))).toBe('fields_repeated');
    expect(reasonOf(refusal('fields', 'a', null))).toBe('fields_invalid');
  });

  it('finds nothing through names of Object.prototype', () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(reasonOf(refusal('fields[events]', name))).toBe('fields_field_invalid');
      expect(reasonOf(refusal(`fields[${name}]`, 'title'))).toBe('fields_type_invalid');
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// The types a read returns
// ---------------------------------------------------------------------------------------------------------

const node = (type: string, fields: string[]): RecordTypeTree => ({ type, fields: new Set(fields), include: new Map() });
const link = (from: RecordTypeTree, field: string, to: RecordTypeTree) => (from.include as Map<string, RecordTypeTree>).set(field, to);

const buildings = node('buildings', ['name', 'events']);
const events = node('events', ['title', 'venue', 'festival']);
const festivals = node('festivals', ['name', 'events']);
link(events, 'venue', buildings);
link(events, 'festival', festivals);
link(buildings, 'events', events);
link(festivals, 'events', events);

const spec = (field: string, ...include: IncludeSpec[]): IncludeSpec => ({ field, include });

describe('returnedTypes', () => {
  it('is the resource alone without include', () => {
    expect(returnedTypes(events, [])).toEqual(new Map([['events', new Set(['title', 'venue', 'festival'])]]));
  });

  it('adds the type of every level include expands, each type once', () => {
    const types = returnedTypes(events, [spec('festival', spec('events', spec('venue')))]);
    expect([...types.keys()]).toEqual(['events', 'festivals', 'buildings']);
  });

  it('unites the fields of two resources of one type (a native and a CMS collection)', () => {
    const cmsEvents = node('events', ['title', 'summary']);
    const page = node('pages', ['title', 'related']);
    link(page, 'related', cmsEvents);
    link(page, 'events', events);
    const types = returnedTypes(page, [spec('related'), spec('events')]);
    expect(types.get('events')).toEqual(new Set(['title', 'summary', 'venue', 'festival']));
  });
});

// ---------------------------------------------------------------------------------------------------------
// Within the whole query
// ---------------------------------------------------------------------------------------------------------

const vocabulary: QueryVocabulary = {
  sortable: new Set(['title', 'sort']),
  filterable: new Map([['title', { type: 'string' }]]),
  include: new Map([
    ['venue', new Map([['events', new Map()]])],
    ['festival', new Map()],
  ]),
  records: events,
  locales: null,
};

describe('fields[type] in collection and record queries', () => {
  const parse = (text: string) => parseCollectionQuery(new URLSearchParams(text), vocabulary);

  it('keeps one fieldset per type', () => {
    expect(parse('fields[events]=title&include=venue&fields[buildings]=').fields).toEqual(
      new Map([
        ['events', new Set(['title'])],
        ['buildings', new Set()],
      ]),
    );
  });

  it('judges a type against the include as sent, wherever it stands in the query', () => {
    expect(parse('fields[buildings]=name&include=venue').fields.get('buildings')).toEqual(new Set(['name']));
    const error = onlyProblem(() => parse('fields[buildings]=name'));
    expect(error).toMatchObject({ source: { parameter: 'fields[buildings]' }, meta: { reason: 'fields_type_invalid' } });
    expect(error.detail).toContain('(events)');
  });

  it('leaves types unjudged when include itself is refused: the include problem alone is reported', () => {
    const problems = problemsOf(() => parse('fields[buildings]=name&include=nosuch'));
    expect(problems.map((problem) => [(problem.source as { parameter: string }).parameter, reasonOf(problem)])).toEqual([
      ['include', 'include_invalid'],
    ]);
    const repeated = problemsOf(() => parse('fields[buildings]=name&include=venue&include=venue'));
    expect(repeated.map(reasonOf)).toEqual(['parameter_repeated']);
  });

  it('refuses a fieldset given twice (also in two spellings of one name)', () => {
    const error = onlyProblem(() => parse('fields[events]=title&fields%5Bevents%5D=venue'));
    expect(error).toMatchObject({ source: { parameter: 'fields[events]' }, meta: { reason: 'parameter_repeated' } });
  });

  it('reports fieldset problems with the others, in the order sent', () => {
    const problems = problemsOf(() => parse('limit=0&fields[events]=nope&sort=nope&fields[x]=y'));
    expect(problems.map((problem) => [(problem.source as { parameter: string }).parameter, reasonOf(problem)])).toEqual([
      ['limit', 'limit_invalid'],
      ['fields[events]', 'fields_field_invalid'],
      ['sort', 'sort_invalid'],
      ['fields[x]', 'fields_type_invalid'],
    ]);
  });

  it('applies to single records and singletons too', () => {
    expect(parseRecordQuery(new URLSearchParams('fields[events]=venue&include=venue'), vocabulary)).toEqual({
      locale: null,
      fallback: [],
      include: [spec('venue')],
      fields: new Map([['events', new Set(['venue'])]]),
      status: 'published',
    });
    expect(reasonOf(onlyProblem(() => parseRecordQuery(new URLSearchParams('fields[events]=nope'), vocabulary)))).toBe(
      'fields_field_invalid',
    );
  });

  it('keeps "fieldsX" an unknown parameter', () => {
    expect(reasonOf(onlyProblem(() => parse('fieldsets=title')))).toBe('unknown_parameter');
  });
});

// ---------------------------------------------------------------------------------------------------------
// On the application's content types, with grants
// ---------------------------------------------------------------------------------------------------------

const resources = demoResources();
const byId = new Map(resources.map((resource) => [resource.id, resource]));
const resolve = targetResolver(resources);

const grantsOf = (input: unknown): KeyGrants => {
  const resolved = resolveGrants(input, resources, []);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  return resolved.grants;
};

const projectorOf = (grants: KeyGrants) => {
  const cache = new Map<string, Projection>();
  return (resource: Resource): Projection => {
    let projection = cache.get(resource.id);
    if (!projection) cache.set(resource.id, (projection = project(grants, resource, resolve)));
    return projection;
  };
};

const vocabularyOf = (grants: KeyGrants, resourceId: string) => {
  const projectionOf = projectorOf(grants);
  const projection = projectionOf(byId.get(resourceId)!);
  return {
    projection,
    projectionOf,
    vocabulary: queryVocabulary(projection, null, includeTree(projection, projectionOf), recordTypeTree(projection, projectionOf)),
  };
};

describe('shownProjection', () => {
  const grants = grantsOf({
    resources: {
      'native:events': { actions: ['read', 'update'], read: ['title', 'summary', 'venue', 'body', 'cover'], write: ['title', 'capacity'] },
      'native:buildings': { actions: ['read'], read: ['name', 'city', 'events'] },
    },
  });
  const { projection, vocabulary: events } = vocabularyOf(grants, 'native:events');

  it('is the projection itself when the type has no fieldset', () => {
    expect(shownProjection(projection, new Map([['buildings', new Set(['name'])]]), [])).toBe(projection);
  });

  it('keeps the named readable fields in schema order, and cuts the field metadata to them', () => {
    const shown = shownProjection(projection, new Map([['events', new Set(['venue', 'title'])]]), []);
    expect(shown.readable.map((field) => field.key)).toEqual(['title', 'venue']);
    expect(shown.fields.map((meta) => meta.key)).toEqual(['title', 'venue']);
    // What the read may still do with the other fields: sort, filter and expand through the projection.
    expect(shown.targets).toBe(projection.targets);
  });

  it('shows a relation include expands whether the fieldset names it or not', () => {
    const shown = shownProjection(projection, new Map([['events', new Set(['title'])]]), [spec('venue')]);
    expect(shown.readable.map((field) => field.key)).toEqual(['title', 'venue']);
  });

  it('drops write-only fields from the metadata (they are not shown)', () => {
    expect(projection.fields.map((meta) => meta.key)).toContain('capacity');
    const shown = shownProjection(projection, new Map([['events', new Set(['title'])]]), []);
    expect(shown.fields).toEqual([projection.fields.find((meta) => meta.key === 'title')]);
  });

  it('describes the types and readable fields a read can return', () => {
    expect(events.records.type).toBe('events');
    expect([...events.records.fields]).toEqual(['title', 'summary', 'venue', 'cover', 'body']);
    expect([...events.records.include.keys()]).toEqual(['venue']);
    expect([...events.records.include.get('venue')!.fields]).toEqual(['name', 'city', 'events']);
    expect(events.records.include.get('venue')!.include.get('events')).toBe(events.records);
  });
});

describe('properties: random grants and random field lists', () => {
  const NATIVE = ['native:events', 'native:buildings', 'native:festivals'] as const;
  const READS = [...NATIVE, 'cms:site-a/news', 'cms:site-a/pages'] as const;
  const allFieldNames = [...new Set(resources.flatMap((resource) => resource.fields.map((field) => field.key)))];
  const types = ['events', 'buildings', 'festivals', 'news', 'pages', 'settings', 'nosuch'];
  /** Include paths by resource slug: paths its relations have (the grants decide whether they are valid). */
  const INCLUDES: Record<string, string[]> = {
    events: ['venue', 'festival', 'venue.events', 'festival.events.venue'],
    news: ['venue', 'festival', 'festival.events'],
    buildings: ['events', 'events.festival'],
    festivals: ['events', 'events.venue'],
    pages: ['relatedPages', 'relatedPages.relatedPages'],
  };

  const grantArb = (resourceId: string) => {
    const fields = byId.get(resourceId)!.fields.map((field) => field.key);
    // Mostly readable, so that many requests pass the other checks and reach the fieldsets.
    return fc.record({
      actions: fc.constantFrom(['read'], ['read'], ['read'], ['read', 'create'], ['create'], []),
      read: fc.oneof(fc.constant(fields), fc.subarray(fields)),
      write: fc.subarray(fields),
    });
  };
  const grantsArb = fc
    .tuple(...READS.map(grantArb))
    .map((list) => grantsOf({ resources: Object.fromEntries(list.map((grant, index) => [READS[index], grant])) }));
  const fieldsOfType = (type: string) => [
    ...new Set(resources.filter((resource) => resource.slug === type).flatMap((resource) => resource.fields.map((field) => field.key))),
  ];
  const nameArb = fc.oneof(fc.constantFrom(...allFieldNames, '', '__proto__', 'nosuch'), fc.string({ maxLength: 12 }));
  const sendable = (type: string) =>
    fc.tuple(
      fc.constant(type),
      fc.subarray(fieldsOfType(type), { maxLength: 3 }).map((names) => names.join(',')),
    );
  const junk = fc.tuple(
    fc.oneof(fc.constantFrom(...types), fc.string({ maxLength: 8 })),
    fc.array(nameArb, { maxLength: 8 }).map((names) => names.join(',')),
  );
  // Mostly fieldsets a key could send (its resource's type, or another, with some of its fields), some of anything.
  const requestArb = fc.constantFrom(...READS).chain((resource) =>
    fc.record({
      resource: fc.constant(resource),
      include: fc.option(
        fc.uniqueArray(fc.constantFrom(...INCLUDES[byId.get(resource)!.slug]!, 'nosuch'), { minLength: 1, maxLength: 2 }),
        {
          nil: undefined,
          freq: 2,
        },
      ),
      fieldsets: fc.uniqueArray(
        fc.oneof(
          { weight: 3, arbitrary: sendable(byId.get(resource)!.slug) },
          { weight: 2, arbitrary: fc.constantFrom(...types.filter((type) => type !== 'nosuch')).chain(sendable) },
          { weight: 1, arbitrary: junk },
        ),
        { maxLength: 3, selector: ([type]) => type },
      ),
      single: fc.boolean(),
    }),
  );

  it('never shows a field the key cannot read, never throws anything but a 400, and shows what was asked', () => {
    fc.assert(
      fc.property(grantsArb, requestArb, (grants, request) => {
        const { projection, projectionOf, vocabulary: vocab } = vocabularyOf(grants, request.resource);
        const params = new URLSearchParams();
        if (request.include) params.set('include', request.include.join(','));
        for (const [type, names] of request.fieldsets) params.append(`fields[${type}]`, names);

        let parsed: { fields: ReadonlyMap<string, ReadonlySet<string>>; include: IncludeSpec[] };
        try {
          parsed = request.single ? parseRecordQuery(params, vocab) : parseCollectionQuery(params, vocab);
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
          expect((error as ApiError).status).toBe(400);
          for (const object of (error as ApiError).errors)
            expect(params.has((object.source as { parameter: string }).parameter)).toBe(true);
          return;
        }
        // Every level the include expands, cut by its fieldset: only readable fields, and exactly those asked.
        const check = (level: Projection, include: readonly IncludeSpec[]) => {
          const shown = shownProjection(level, parsed.fields, include);
          const readable = new Set(level.readable.map((field) => field.key));
          const granted = new Set(grants.resources[level.resource.id]?.read ?? []);
          for (const field of shown.readable) {
            expect(readable.has(field.key)).toBe(true);
            expect(granted.has(field.key)).toBe(true);
          }
          for (const meta of shown.fields) if (meta.readable) expect(readable.has(meta.key)).toBe(true);
          const asked = parsed.fields.get(level.resource.slug);
          if (asked) {
            // With a fieldset, the metadata describes exactly the fields shown.
            expect(shown.fields.map((meta) => meta.key)).toEqual(shown.readable.map((field) => field.key));
            const expected = [...readable].filter((key) => asked.has(key) || include.some((item) => item.field === key));
            expect(shown.readable.map((field) => field.key)).toEqual(expected);
          } else {
            expect(shown).toBe(level);
          }
          for (const item of include) check(projectionOf(level.targets.get(item.field)!), item.include);
        };
        check(projection, parsed.include);
      }),
      { numRuns: 2500 },
    );
  });

  it('answers a field the key cannot read exactly as one that does not exist', () => {
    fc.assert(
      fc.property(grantsArb, fc.constantFrom(...NATIVE), fc.constantFrom(...allFieldNames), (grants, resourceId, name) => {
        const { vocabulary: vocab } = vocabularyOf(grants, resourceId);
        fc.pre(!vocab.records.fields.has(name));
        const type = vocab.records.type;
        const refusal = onlyProblem(() => parseCollectionQuery(new URLSearchParams(`fields[${type}]=${name}`), vocab));
        const unknown = onlyProblem(() => parseCollectionQuery(new URLSearchParams(`fields[${type}]=zzNoSuchField`), vocab));
        expect(JSON.stringify({ ...refusal, detail: refusal.detail.replace(`'${name}'`, "'zzNoSuchField'") })).toBe(
          JSON.stringify(unknown),
        );
      }),
      { numRuns: 500 },
    );
  });
});
