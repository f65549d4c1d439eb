/**
 * The grant matrix's pure logic: the warnings that say what a grant means (a relation whose target is not
 * granted, read or write with no field) and their fixes, the templates, and copying another key's grants.
 */
import type { AdminKey } from '../../src/plugins/public-api/shared/contracts/keys';
import type { CommandSummary, FieldSummary, ResourceSummary } from '../../src/plugins/public-api/shared/contracts/registry';
import { EMPTY_GRANTS, grantOf, setAction, setField, type Draft } from '../../src/plugins/public-api/admin/src/utils/grants';
import { grantTargetRead, grantWarnings, hiddenRelations } from '../../src/plugins/public-api/admin/src/utils/grant-warnings';
import { applyTemplate, copyGrants, grantTemplates, templateId } from '../../src/plugins/public-api/admin/src/utils/grant-templates';

const field = (key: string, target?: string | null): FieldSummary => ({
  key,
  label: key.charAt(0).toUpperCase() + key.slice(1),
  type: target === undefined ? 'string' : 'relation',
  required: false,
  localized: false,
  ...(target === undefined ? {} : { target }),
});

const resource = (slug: string, fields: FieldSummary[], extra: Partial<ResourceSummary> = {}): ResourceSummary => ({
  id: `native:${slug}`,
  name: slug.charAt(0).toUpperCase() + slug.slice(1),
  slug,
  mode: 'collection',
  sourceType: 'native',
  website: null,
  path: `/${slug}`,
  contentType: `api::${slug}.${slug}`,
  actions: ['read', 'create', 'update', 'delete'],
  fields,
  personalData: false,
  ...extra,
});

const PRODUCTS = resource('products', [field('name'), field('price'), field('event', 'native:events')]);
const EVENTS = resource('events', [field('title'), field('venue', 'native:buildings')]);
const BUILDINGS = resource('buildings', [field('name'), field('events', 'native:events')]);
const JOBS = resource('jobs', [field('title'), field('applications', null)]);
const APPLICATIONS = resource('applications', [field('email')], { personalData: true, actions: ['read', 'create'] });
const ALL = [PRODUCTS, EVENTS, BUILDINGS, JOBS, APPLICATIONS];
const COMMANDS: CommandSummary[] = [
  { name: 'job-application', description: '' },
  { name: 'newsletter-signup', description: '' },
];

const kinds = (draft: Draft) =>
  grantWarnings(draft, ALL).map((warning) =>
    warning.kind === 'relation-target'
      ? `${warning.resource.id}.${warning.field.key} -> ${warning.target?.id ?? 'none'}`
      : `${warning.kind} ${warning.resource.id}`,
  );

test('a readable relation to an ungranted resource is named, and its fix grants the target without new warnings', () => {
  let draft = setAction(EMPTY_GRANTS, PRODUCTS, 'read', true);
  expect(kinds(draft)).toEqual(['native:products.event -> native:events']);
  expect([...hiddenRelations(draft, PRODUCTS)]).toEqual(['event']);

  draft = grantTargetRead(draft, EVENTS);
  // Events is read without its own link to buildings (not granted), so the fix raises nothing new.
  expect(grantOf(draft, 'native:events')).toEqual({ actions: ['read'], read: ['title'], write: [] });
  expect(kinds(draft)).toEqual([]);
  expect([...hiddenRelations(draft, PRODUCTS)]).toEqual([]);

  // Not reading the relation: no warning either.
  const narrow = setField(setAction(EMPTY_GRANTS, PRODUCTS, 'read', true), PRODUCTS, 'event', 'read', false);
  expect(kinds(narrow)).toEqual([]);
});

test('a relation to content the API does not serve, read with no field, and writes with no writable field are named', () => {
  let draft = setAction(EMPTY_GRANTS, JOBS, 'read', true);
  expect(kinds(draft)).toEqual(['native:jobs.applications -> none']);
  draft = setField(draft, JOBS, 'title', 'read', false);
  draft = setField(draft, JOBS, 'applications', 'read', false);
  expect(kinds(draft)).toEqual(['read-no-fields native:jobs']);
  draft = setAction(EMPTY_GRANTS, EVENTS, 'create', true);
  expect(kinds(draft)).toEqual(['write-no-fields native:events']);
  // A writable relation to an ungranted target is left out of writes as well.
  draft = setField(draft, EVENTS, 'venue', 'write', true);
  expect(kinds(draft)).toEqual(['native:events.venue -> native:buildings']);
});

test('templates: read-only site leaves personal data out, full access grants everything, a form its command alone; origins stay', () => {
  const start: Draft = { ...EMPTY_GRANTS, origins: ['https://shop.example'] };
  const readOnly = applyTemplate({ kind: 'read-only-site' }, start, ALL, COMMANDS);
  expect(Object.keys(readOnly.resources)).toEqual(['native:products', 'native:events', 'native:buildings', 'native:jobs']);
  expect(readOnly.resources['native:events']).toEqual({ actions: ['read'], read: ['title', 'venue'], write: [] });
  expect(readOnly.commands).toEqual([]);
  expect(readOnly.origins).toEqual(['https://shop.example']);

  const full = applyTemplate({ kind: 'full-access' }, start, ALL, COMMANDS);
  expect(full.resources['native:applications']).toEqual({ actions: ['read', 'create'], read: ['email'], write: ['email'] });
  expect(full.commands).toEqual(['job-application', 'newsletter-signup']);

  const form = applyTemplate({ kind: 'form', command: 'newsletter-signup' }, { ...full, origins: ['https://a.example'] }, ALL, COMMANDS);
  expect(form).toEqual({ resources: {}, commands: ['newsletter-signup'], origins: ['https://a.example'] });
  // A form of a command the server no longer knows grants nothing rather than a name it would refuse.
  expect(applyTemplate({ kind: 'form', command: 'gone' }, start, ALL, COMMANDS).commands).toEqual([]);
});

test('the templates are what the registry reports: one form per registered command, none named by the plugin', () => {
  expect(grantTemplates(COMMANDS).map(templateId)).toEqual([
    'read-only-site',
    'full-access',
    'form-job-application',
    'form-newsletter-signup',
  ]);
  expect(grantTemplates([]).map(templateId)).toEqual(['read-only-site', 'full-access']);
  expect(grantTemplates([{ name: 'contact-request', description: 'A message to the team.' }]).map(templateId)).toEqual([
    'read-only-site',
    'full-access',
    'form-contact-request',
  ]);
});

test('copying another key takes its resources that still exist and its commands, and keeps the form’s origins', () => {
  const other = {
    grants: {
      resources: {
        'native:events': { actions: ['read'], read: ['title'], write: [] },
        'cms:gone/pages': { actions: ['read'], read: ['title'], write: [] },
      },
      commands: ['newsletter-signup'],
      origins: ['https://other.example'],
    },
  } as unknown as AdminKey;
  expect(copyGrants(other, { ...EMPTY_GRANTS, origins: ['https://mine.example'] }, ALL)).toEqual({
    resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } },
    commands: ['newsletter-signup'],
    origins: ['https://mine.example'],
  });
});
