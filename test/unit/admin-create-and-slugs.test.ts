/**
 * The admin's pure rules of issue 33, item 14: the warning for a key that may create records but not
 * write a field every create must send, with its fix; a publication's collection slug filled in from
 * its content type until the admin types their own; the OpenAPI preview's order; resources' labels.
 */
import fc from 'fast-check';
import type { ContentTypeSummary, FieldSummary, ResourceSummary } from '../../src/plugins/public-api/shared/contracts/registry';
import { EMPTY_GRANTS, grantOf, setAction, setField, type Draft } from '../../src/plugins/public-api/admin/src/utils/grants';
import { grantRequiredWrites, grantWarnings } from '../../src/plugins/public-api/admin/src/utils/grant-warnings';
import { collectionAfterTypeChange, slugify, suggestedCollection } from '../../src/plugins/public-api/admin/src/utils/publication-slug';
import { resourceLabel } from '../../src/plugins/public-api/admin/src/utils/resource-label';
import { splitPaths } from '../../src/plugins/public-api/admin/src/components/preview/openapi';

const field = (key: string, extra: Partial<FieldSummary> = {}): FieldSummary => ({
  key,
  label: key.charAt(0).toUpperCase() + key.slice(1),
  type: 'string',
  required: false,
  localized: false,
  ...extra,
});

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
  fields: [
    field('title', { required: true }),
    field('summary'),
    field('slug', { required: true, filledIn: true }),
    field('startsAt', { required: true, type: 'datetime' }),
  ],
  personalData: false,
};

const createWarnings = (draft: Draft) =>
  grantWarnings(draft, [EVENTS]).flatMap((warning) =>
    warning.kind === 'create-required-not-writable' ? [warning.fields.map((item) => item.key)] : [],
  );

describe('Create without a required field', () => {
  test('is named with the fields a create must send; fields the server fills in are not among them', () => {
    const draft = setField(setAction(EMPTY_GRANTS, EVENTS, 'create', true), EVENTS, 'summary', 'write', true);
    expect(createWarnings(draft)).toEqual([['title', 'startsAt']]);
    expect(createWarnings(setField(draft, EVENTS, 'title', 'write', true))).toEqual([['startsAt']]);
  });

  test('is not named for update alone, nor when every required field is writable, nor twice with "no writable field"', () => {
    const update = setField(setAction(EMPTY_GRANTS, EVENTS, 'update', true), EVENTS, 'summary', 'write', true);
    expect(createWarnings(update)).toEqual([]);
    const all = ['title', 'startsAt'].reduce(
      (draft, key) => setField(draft, EVENTS, key, 'write', true),
      setAction(EMPTY_GRANTS, EVENTS, 'create', true),
    );
    expect(createWarnings(all)).toEqual([]);
    // Create with no writable field at all has its own warning; this one would only repeat it.
    const none = setAction(EMPTY_GRANTS, EVENTS, 'create', true);
    expect(grantWarnings(none, [EVENTS]).map((warning) => warning.kind)).toEqual(['write-no-fields']);
  });

  test('its fix adds exactly the missing fields, in the schema’s order, and leaves the rest of the grant', () => {
    const draft = setField(
      setField(setAction(EMPTY_GRANTS, EVENTS, 'create', true), EVENTS, 'summary', 'write', true),
      EVENTS,
      'title',
      'read',
      true,
    );
    const fixed = grantRequiredWrites(draft, EVENTS);
    expect(grantOf(fixed, EVENTS.id)).toEqual({ actions: ['create', 'read'], read: ['title'], write: ['title', 'summary', 'startsAt'] });
    expect(createWarnings(fixed)).toEqual([]);
  });

  test('property: for any grant, the fix leaves no such warning and takes nothing away', () => {
    const keys = EVENTS.fields.map((item) => item.key);
    fc.assert(
      fc.property(
        fc.subarray(['read', 'create', 'update', 'delete'] as const),
        fc.subarray(keys),
        fc.subarray(keys),
        (actions, read, write) => {
          const draft: Draft = { ...EMPTY_GRANTS, resources: { [EVENTS.id]: { actions: [...actions], read, write } } };
          const fixed = grantOf(grantRequiredWrites(draft, EVENTS), EVENTS.id);
          expect(createWarnings({ ...draft, resources: { [EVENTS.id]: fixed } })).toEqual([]);
          expect(fixed.actions).toEqual(actions);
          expect(fixed.read).toEqual(read);
          expect(write.every((key) => fixed.write.includes(key))).toBe(true);
        },
      ),
    );
  });
});

const type = (
  displayName: string,
  singularName: string,
  pluralName: string,
  kind: ContentTypeSummary['kind'] = 'collectionType',
): ContentTypeSummary => ({
  uid: `api::${singularName}.${singularName}`,
  displayName,
  singularName,
  pluralName,
  kind,
  websiteScoped: kind === 'collectionType',
  personalData: false,
});

const PAGE = type('Page', 'page', 'pages');
const JOB_APPLICATION = type('Job application', 'job-application', 'job-applications');
const HOMEPAGE = type('Homepage', 'homepage', 'homepages', 'singleType');
const SLUG_RULE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

describe('a publication’s collection slug', () => {
  test('is the plural API name of a collection type, the singular one of a single type', () => {
    expect(suggestedCollection(JOB_APPLICATION)).toBe('job-applications');
    expect(suggestedCollection(HOMEPAGE)).toBe('homepage');
    expect(slugify('  Événements & Ärger_2026 ')).toBe('evenements-arger-2026');
  });

  test('follows the content type while the admin has not typed one', () => {
    expect(collectionAfterTypeChange('', undefined, PAGE, [])).toBe('pages');
    expect(collectionAfterTypeChange('pages', PAGE, JOB_APPLICATION, [])).toBe('job-applications');
    expect(collectionAfterTypeChange('job-applications', JOB_APPLICATION, HOMEPAGE, [])).toBe('homepage');
  });

  test('is kept once the admin typed their own, even one that looks like a slug', () => {
    expect(collectionAfterTypeChange('news', PAGE, JOB_APPLICATION, [])).toBe('news');
    expect(collectionAfterTypeChange('pages-archive', PAGE, JOB_APPLICATION, [])).toBe('pages-archive');
    expect(collectionAfterTypeChange('p-2', PAGE, JOB_APPLICATION, [])).toBe('p-2');
  });

  test('avoids the website’s other publications’ slugs, and still follows the type then', () => {
    expect(collectionAfterTypeChange('', undefined, PAGE, ['pages'])).toBe('pages-2');
    expect(collectionAfterTypeChange('', undefined, PAGE, ['pages', 'pages-2'])).toBe('pages-3');
    expect(collectionAfterTypeChange('pages-2', PAGE, HOMEPAGE, ['pages'])).toBe('homepage');
  });

  test('property: any name gives a slug the server accepts (or none), never taken, and a typed slug is never replaced', () => {
    const names = fc.string({ maxLength: 90 });
    fc.assert(
      fc.property(names, names, fc.array(fc.string({ maxLength: 12 }), { maxLength: 5 }), (plural, typed, taken) => {
        const next = type('Any', plural, plural);
        const suggestion = collectionAfterTypeChange('', undefined, next, taken);
        if (suggestion !== '') {
          expect(suggestion).toMatch(SLUG_RULE);
          expect(taken).not.toContain(suggestion);
        }
        const own = slugify(typed);
        if (own !== '' && !own.startsWith(slugify(PAGE.pluralName))) expect(collectionAfterTypeChange(own, PAGE, next, taken)).toBe(own);
      }),
    );
  });
});

describe('the OpenAPI preview’s order and the webhook form’s labels', () => {
  const path = (name: string) => ({ path: name, operations: [] });

  test('the key’s resources and commands come first, in the document’s order; the paths every key has follow', () => {
    const paths = [
      '/',
      '/schema',
      '/commands/schema',
      '/sync',
      '/operations',
      '/events',
      '/events/{record}',
      '/cms/city/pages',
      '/commands/newsletter-signup',
      '/eventsx',
    ].map(path);
    const { own, common } = splitPaths(paths, ['/events', '/cms/city/pages', '/commands/newsletter-signup']);
    expect(own.map((item) => item.path)).toEqual(['/events', '/events/{record}', '/cms/city/pages', '/commands/newsletter-signup']);
    // `/eventsx` is not below `/events`.
    // The command list (/commands/schema) is every key's; a granted command is the key's own.
    expect(common.map((item) => item.path)).toEqual(['/', '/schema', '/commands/schema', '/sync', '/operations', '/eventsx']);
  });

  test('a website’s resource is named with its website; a native one by its name', () => {
    expect(resourceLabel({ name: 'Pages', website: { slug: 'city-guide', name: 'City guide' } })).toBe('City guide: Pages');
    expect(resourceLabel({ name: 'Events', website: null })).toBe('Events');
  });
});
