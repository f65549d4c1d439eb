/**
 * The components of the demo plan (pages' sections, SEO of pages and events), checked without a
 * database against the component schemas in src/components: what Strapi would refuse on publish
 * (a missing required value, a string too long, an unknown enumeration value or attribute) fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildDemoPlan } from '../../src/seed/plan';
import { COMPONENT } from '../../src/seed/plan/sections';
import { UID, type PlannedDocument, type SeedData } from '../../src/seed/plan/types';

const ROOT = path.resolve(__dirname, '..', '..');
const COMPONENTS_DIR = path.join(ROOT, 'src', 'components');

type Attribute = {
  type: string;
  required?: boolean;
  maxLength?: number;
  enum?: string[];
  multiple?: boolean;
  component?: string;
  components?: string[];
  repeatable?: boolean;
  relation?: string;
  target?: string;
  pluginOptions?: { i18n?: { localized?: boolean } };
};
type Schema = { collectionName: string; attributes: Record<string, Attribute> };

/** Every component schema by uid, `<category>.<file name>`, as Strapi's loader names them. */
const components = new Map<string, Schema>(
  fs.readdirSync(COMPONENTS_DIR).flatMap((category) =>
    fs
      .readdirSync(path.join(COMPONENTS_DIR, category))
      .filter((file) => file.endsWith('.json'))
      .map((file): [string, Schema] => [
        `${category}.${file.replace(/\.json$/, '')}`,
        JSON.parse(fs.readFileSync(path.join(COMPONENTS_DIR, category, file), 'utf8')),
      ]),
  ),
);
const contentTypeAttributes = (name: string): Record<string, Attribute> =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'src', 'api', name, 'content-types', name, 'schema.json'), 'utf8')).attributes;

const plan = buildDemoPlan();
const of = (uid: string) => plan.documents.filter((document) => document.contentType === uid);
const first = (document: PlannedDocument) => document.versions[0].data;
const isRef = (value: unknown, kind: 'file-ref' | 'document-ref') =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === kind;

/** What is wrong with one component value against its schema, as readable lines; nested components included. */
const problemsOf = (uid: string, value: SeedData, where: string): string[] => {
  const schema = components.get(uid);
  if (!schema) return [`${where}: no component ${uid}`];
  const problems: string[] = [];
  for (const key of Object.keys(value))
    if (key !== '__component' && !(key in schema.attributes)) problems.push(`${where}.${key}: not an attribute of ${uid}`);
  for (const [key, attribute] of Object.entries(schema.attributes)) {
    const inner = value[key];
    const at = `${where}.${key}`;
    const empty = inner === undefined || inner === null || (Array.isArray(inner) && inner.length === 0);
    if (attribute.required && empty) problems.push(`${at}: required`);
    if (empty) continue;
    if (attribute.maxLength !== undefined && typeof inner === 'string' && inner.length > attribute.maxLength)
      problems.push(`${at}: longer than ${attribute.maxLength}`);
    if (attribute.type === 'enumeration' && !attribute.enum!.includes(String(inner))) problems.push(`${at}: not in the enumeration`);
    if (attribute.type === 'media') {
      const ok = attribute.multiple ? Array.isArray(inner) && inner.every((item) => isRef(item, 'file-ref')) : isRef(inner, 'file-ref');
      if (!ok) problems.push(`${at}: not ${attribute.multiple ? 'a list of files' : 'one file'}`);
    }
    if (attribute.type === 'relation' && !(Array.isArray(inner) && inner.every((item) => isRef(item, 'document-ref'))))
      problems.push(`${at}: not a list of documents`);
    if (attribute.type === 'component') problems.push(...problemsOf(attribute.component!, inner as SeedData, at));
  }
  return problems;
};

test('component schemas: Strapi 5 layout, distinct tables, nested and related only as Strapi allows in components', () => {
  expect([...components.keys()].sort()).toEqual(Object.values(COMPONENT).sort());
  const tables = [...components.values()].map((schema) => schema.collectionName);
  expect(new Set(tables).size).toBe(tables.length);
  for (const [uid, schema] of components) {
    expect([uid, schema.collectionName]).toEqual([uid, expect.stringMatching(/^components_[a-z_]+$/)]);
    for (const attribute of Object.values(schema.attributes)) {
      if (attribute.type === 'component') expect(components.has(attribute.component!)).toBe(true);
      // The content-type builder lets a component hold one-way relations only (no inverse side).
      if (attribute.type === 'relation') expect(['oneToOne', 'oneToMany']).toContain(attribute.relation);
    }
  }
});

test('the new fields are optional, and the dynamic zone lists exactly the section components', () => {
  const page = contentTypeAttributes('page');
  const event = contentTypeAttributes('event');
  expect(page.sections).toEqual({ type: 'dynamiczone', components: expect.any(Array) });
  expect([...page.sections.components!].sort()).toEqual([...components.keys()].filter((uid) => uid.startsWith('sections.')).sort());
  for (const attribute of [page.sections, page.seo, event.seo]) expect(attribute.required).toBeUndefined();
  expect(page.seo).toMatchObject({ type: 'component', component: COMPONENT.seo, repeatable: false });
  // An event's SEO is written per language, like its title.
  expect(event.seo).toMatchObject({ type: 'component', component: COMPONENT.seo, pluginOptions: { i18n: { localized: true } } });
});

test('every page has sections of the kinds a real page has, and every value fits its component schema', () => {
  const problems: string[] = [];
  const kinds = new Set<string>();
  for (const page of of(UID.page)) {
    const sections = first(page).sections as SeedData[];
    expect([page.key, sections.length > 0]).toEqual([page.key, true]);
    sections.forEach((section, index) => {
      kinds.add(String(section.__component));
      problems.push(...problemsOf(String(section.__component), section, `${page.key}.sections[${index}]`));
    });
    problems.push(...problemsOf(COMPONENT.seo, first(page).seo as SeedData, `${page.key}.seo`));
  }
  expect(problems).toEqual([]);
  expect([...kinds].sort()).toEqual(
    Object.values(COMPONENT)
      .filter((uid) => uid.startsWith('sections.'))
      .sort(),
  );
  // Most pages mix kinds; a hero comes first wherever there is one.
  const mixed = of(UID.page).filter((page) => new Set((first(page).sections as SeedData[]).map((s) => s.__component)).size >= 3);
  expect(mixed.length).toBeGreaterThanOrEqual(8);
  for (const page of of(UID.page)) {
    const order = (first(page).sections as SeedData[]).map((section) => section.__component);
    if (order.includes(COMPONENT.hero)) expect([page.key, order.indexOf(COMPONENT.hero)]).toEqual([page.key, 0]);
  }
});

test('related events are published events of the plan; pages out of the menu are out of search results', () => {
  const published = new Set(
    of(UID.event)
      .filter((event) => event.publish)
      .map((event) => event.key),
  );
  const related = of(UID.page).flatMap((page) =>
    (first(page).sections as SeedData[])
      .filter((section) => section.__component === COMPONENT.relatedEvents)
      .flatMap((section) => section.events as Array<{ key: string }>),
  );
  expect(related.length).toBeGreaterThanOrEqual(10);
  for (const event of related) expect([event.key, published.has(event.key)]).toEqual([event.key, true]);
  for (const page of of(UID.page)) {
    const { seo, showInMenu } = first(page) as { seo: SeedData; showInMenu: boolean };
    expect([page.key, seo.noIndex]).toEqual([page.key, !showInMenu]);
  }
});

test('some published events carry SEO in both languages, in their own language; drafts and the rest do not', () => {
  const events = of(UID.event);
  const withSeo = events.filter((event) => event.versions.some((version) => version.data.seo !== undefined));
  expect(withSeo.length).toBeGreaterThan(20);
  expect(withSeo.length).toBeLessThan(events.length / 2);
  const problems: string[] = [];
  for (const event of withSeo) {
    expect(event.publish).toBe(true);
    for (const version of event.versions) {
      const seo = version.data.seo as SeedData;
      problems.push(...problemsOf(COMPONENT.seo, seo, `${event.key}.${version.locale}.seo`));
      expect(seo.metaTitle).toBe(String(version.data.title).slice(0, 70));
      expect(seo.ogImage).toEqual(first(event).cover);
    }
  }
  expect(problems).toEqual([]);
});
