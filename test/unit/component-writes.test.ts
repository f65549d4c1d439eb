/**
 * Writing component fields, the pure part (contract section 15): judging the values of `component`,
 * `components` and `dynamiczone` fields against the demo's page and its components (write/attributes.ts,
 * fields/types/component-input.ts), the data Strapi is given for them (write/component-data.ts), Strapi's
 * validation paths as pointers into the request (write/component-paths.ts, write/violations.ts), and lids
 * inside components (write/local-ids.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PlannedMember } from '../../src/plugins/public-api/server/src/fields/codec';
import { MAX_COMPONENT_VALUES } from '../../src/plugins/public-api/server/src/fields/types/component-input';
import { allGrants } from '../../src/plugins/public-api/server/src/grants/resolve';
import { project, type Projection } from '../../src/plugins/public-api/server/src/grants/projection';
import { targetResolver } from '../../src/plugins/public-api/server/src/grants/targets';
import type { KeyGrants } from '../../src/plugins/public-api/server/src/grants/types';
import { NATIVE_RESOURCES } from '../../src/settings/native-resources';
import { buildNativeResources, buildWebsiteResources } from '../../src/plugins/public-api/server/src/registry/build';
import { componentCatalog, type StrapiComponentSchema } from '../../src/plugins/public-api/server/src/registry/components';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';
import { planAttributes } from '../../src/plugins/public-api/server/src/write/attributes';
import { componentData, nestedMembers } from '../../src/plugins/public-api/server/src/write/component-data';
import { pointerOfPath } from '../../src/plugins/public-api/server/src/write/component-paths';
import { resolveLocalIds } from '../../src/plugins/public-api/server/src/write/local-ids';
import { apiErrorOfWrite, withPointers } from '../../src/plugins/public-api/server/src/write/violations';
import { DEMO_PUBLICATIONS, contentTypeSchemas } from '../helpers/registry';

const COMPONENTS_DIR = path.resolve(__dirname, '..', '..', 'src', 'components');

const componentSchemas = (): Map<string, StrapiComponentSchema> => {
  const schemas = new Map<string, StrapiComponentSchema>();
  for (const category of fs.readdirSync(COMPONENTS_DIR)) {
    for (const file of fs.readdirSync(path.join(COMPONENTS_DIR, category))) {
      const uid = `${category}.${file.replace(/\.json$/, '')}`;
      const raw = JSON.parse(fs.readFileSync(path.join(COMPONENTS_DIR, category, file), 'utf8'));
      schemas.set(uid, { ...raw, uid, category });
    }
  }
  return schemas;
};

const catalog = componentCatalog(componentSchemas());
const schemas = contentTypeSchemas();
const RESOURCES: Resource[] = [
  ...buildNativeResources(NATIVE_RESOURCES, schemas, {}, catalog),
  ...buildWebsiteResources(
    { id: 1, documentId: 'w1', slug: 'site-a', name: 'Site A', publications: DEMO_PUBLICATIONS },
    schemas,
    {},
    () => {},
    catalog,
  ),
];
const resolve = targetResolver(RESOURCES);
const pages = RESOURCES.find((resource) => resource.id === 'cms:site-a/pages')!;
const projectionOf = (grants: KeyGrants, resource = pages): Projection => project(grants, resource, resolve);
const EVERYTHING = allGrants(RESOURCES, []);
const ALL = projectionOf(EVERYTHING);
/** Pages only: the related-events section's `events` lead to a resource this key is not given. */
const PAGES_ONLY = projectionOf({ ...EVERYTHING, resources: { 'cms:site-a/pages': EVERYTHING.resources['cms:site-a/pages']! } });

const plan = (attributes: Record<string, unknown>, projection = ALL) => planAttributes(projection, attributes);
const problemsOf = (attributes: Record<string, unknown>, projection = ALL) =>
  plan(attributes, projection).problems.map((problem) => (problem.source && 'pointer' in problem.source ? problem.source.pointer : null));

const hero = (attributes: Record<string, unknown>) => ({ type: 'sections.hero', attributes });

describe('judging component values', () => {
  test('every shape reads give is planned, nested values judged by their own types', () => {
    const result = plan({
      seo: { metaTitle: 'T', ogImage: { id: 'img', url: 'ignored' }, noIndex: true },
      sections: [
        hero({ heading: 'H', image: 'img', cta: { label: 'L', url: '/x', openInNewTab: false } }),
        { type: 'sections.related-events', attributes: { events: ['jazz', { id: 'e1', slug: null, collection: 'news' }] } },
        { type: 'sections.rich-text', attributes: { body: { type: 'doc', content: [] } } },
      ],
    });
    expect(result.problems).toEqual([]);
    const [seo, sections] = result.fields;
    expect(seo!.planned).toEqual({
      kind: 'components',
      items: [
        {
          component: 'shared.seo',
          pointer: '/data/attributes/seo',
          attributes: '/data/attributes/seo',
          members: [
            expect.objectContaining({ pointer: '/data/attributes/seo/metaTitle', planned: { kind: 'value', value: 'T' } }),
            expect.objectContaining({
              pointer: '/data/attributes/seo/ogImage',
              planned: { kind: 'media', refs: [{ id: 'img', pointer: '/data/attributes/seo/ogImage' }] },
            }),
            expect.objectContaining({ planned: { kind: 'value', value: true } }),
          ],
        },
      ],
    });
    const items = sections!.planned.kind === 'components' ? sections!.planned.items : [];
    expect(items.map((item) => [item.component, item.pointer, item.attributes])).toEqual([
      ['sections.hero', '/data/attributes/sections/0', '/data/attributes/sections/0/attributes'],
      ['sections.related-events', '/data/attributes/sections/1', '/data/attributes/sections/1/attributes'],
      ['sections.rich-text', '/data/attributes/sections/2', '/data/attributes/sections/2/attributes'],
    ]);
    // The related events' references: the target is the same website's `news` collection of events.
    expect(items[1]!.members[0]!.planned).toEqual({
      kind: 'relation',
      refs: [
        { by: 'either', value: 'jazz', pointer: '/data/attributes/sections/1/attributes/events/0' },
        { by: 'id', value: 'e1', pointer: '/data/attributes/sections/1/attributes/events/1' },
      ],
    });
  });

  test('null clears a component and empties a zone', () => {
    expect(plan({ seo: null, sections: null }).fields.map((entry) => entry.planned)).toEqual([
      { kind: 'components', items: [] },
      { kind: 'components', items: [] },
    ]);
  });

  test.each([
    [{ sections: 'x' }, ['/data/attributes/sections']],
    [{ sections: [1, hero({ heading: 'x' }), null] }, ['/data/attributes/sections/0', '/data/attributes/sections/2']],
    [
      { sections: [{ type: 'sections.hero', attributes: {}, id: 1, meta: {} }] },
      ['/data/attributes/sections/0/id', '/data/attributes/sections/0/meta'],
    ],
    [{ sections: [{ attributes: {} }] }, ['/data/attributes/sections/0/type']],
    [{ sections: [{ type: 7 }] }, ['/data/attributes/sections/0/type']],
    [{ sections: [{ type: 'sections.carousel' }] }, ['/data/attributes/sections/0/type']],
    [{ sections: [{ type: 'shared.seo', attributes: {} }] }, ['/data/attributes/sections/0/type']],
    [{ sections: [{ type: 'sections.hero', attributes: 'x' }] }, ['/data/attributes/sections/0/attributes']],
    [
      { sections: [hero({ heading: 1, nope: 2 })] },
      ['/data/attributes/sections/0/attributes/heading', '/data/attributes/sections/0/attributes/nope'],
    ],
    [
      { sections: [hero({ cta: { label: 2, url: [] } })] },
      ['/data/attributes/sections/0/attributes/cta/label', '/data/attributes/sections/0/attributes/cta/url'],
    ],
    [{ sections: [hero({ cta: [] })] }, ['/data/attributes/sections/0/attributes/cta']],
    [
      { sections: [{ type: 'sections.related-events', attributes: { events: { add: ['x'] } } }] },
      ['/data/attributes/sections/0/attributes/events'],
    ],
    [{ sections: [{ type: 'sections.related-events', attributes: { events: [5] } }] }, ['/data/attributes/sections/0/attributes/events/0']],
    [{ sections: [{ type: 'sections.image-gallery', attributes: { images: 'img' } }] }, ['/data/attributes/sections/0/attributes/images']],
    [{ sections: [{ type: 'sections.rich-text', attributes: { body: 'text' } }] }, ['/data/attributes/sections/0/attributes/body']],
    [{ sections: [{ type: 'sections.call-to-action', attributes: { style: 'loud' } }] }, ['/data/attributes/sections/0/attributes/style']],
    [{ seo: 'x' }, ['/data/attributes/seo']],
    [{ seo: { 'a/b': 1 } }, ['/data/attributes/seo/a~1b']],
    [{ sections: [hero({ heading: 'a\u0000b' })] }, ['/data/attributes/sections/0/attributes/heading']],
  ])('%j is refused at %j', (attributes, pointers) => {
    expect(problemsOf(attributes)).toEqual(pointers);
  });

  test('a component field holding a relation whose target the key is not given is not writable (its links would be lost)', () => {
    const [problem] = plan({ sections: [] }, PAGES_ONLY).problems;
    expect([problem!.source, problem!.meta?.reason]).toEqual([{ pointer: '/data/attributes/sections' }, 'field_not_writable']);
    expect(PAGES_ONLY.fields.find((field) => field.key === 'sections')).toMatchObject({ readable: true, writable: false });
    // SEO holds no relation: writable as granted.
    expect(problemsOf({ seo: { metaTitle: 'x' } }, PAGES_ONLY)).toEqual([]);
    expect(PAGES_ONLY.writable.map((field) => field.key)).toContain('seo');
  });

  test(`at most ${MAX_COMPONENT_VALUES} component values per field, nested ones counted`, () => {
    const sections = (count: number) => Array.from({ length: count }, () => hero({ heading: 'x' }));
    expect(problemsOf({ sections: sections(MAX_COMPONENT_VALUES) })).toEqual([]);
    expect(problemsOf({ sections: sections(MAX_COMPONENT_VALUES + 1) })).toEqual([`/data/attributes/sections/${MAX_COMPONENT_VALUES}`]);
    // Each hero with a call to action is two values.
    const nested = Array.from({ length: MAX_COMPONENT_VALUES / 2 + 1 }, () => hero({ heading: 'x', cta: { label: 'l', url: 'u' } }));
    expect(problemsOf({ sections: nested })[0]).toMatch(/^\/data\/attributes\/sections\/100/);
  });

  test('many bad items report at most 20 problems', () => {
    expect(plan({ sections: Array.from({ length: 50 }, () => 1) }).problems).toHaveLength(20);
  });
});

describe('the data Strapi is given', () => {
  test('components as objects, zones with __component, nested values resolved by valueOf', () => {
    const result = plan({
      seo: null,
      sections: [
        hero({ heading: 'H', image: 'img', cta: { label: 'L', url: '/x' } }),
        { type: 'sections.related-events', attributes: { heading: null, events: ['jazz'] } },
      ],
    });
    const nested = nestedMembers(result.fields);
    expect(nested.map(({ member, component }) => [component, member.pointer])).toEqual([
      ['sections.hero', '/data/attributes/sections/0/attributes/heading'],
      ['sections.hero', '/data/attributes/sections/0/attributes/image'],
      ['shared.link', '/data/attributes/sections/0/attributes/cta/label'],
      ['shared.link', '/data/attributes/sections/0/attributes/cta/url'],
      ['sections.related-events', '/data/attributes/sections/1/attributes/heading'],
      ['sections.related-events', '/data/attributes/sections/1/attributes/events'],
    ]);
    const valueOf = (member: PlannedMember) =>
      member.planned.kind === 'value' ? member.planned.value : member.planned.kind === 'media' ? 42 : { set: [{ documentId: 'd1' }] };
    const [seo, sections] = result.fields;
    expect(componentData(seo!.field, seo!.planned.kind === 'components' ? seo!.planned.items : [], valueOf)).toBeNull();
    expect(componentData(sections!.field, sections!.planned.kind === 'components' ? sections!.planned.items : [], valueOf)).toEqual([
      { __component: 'sections.hero', heading: 'H', image: 42, cta: { label: 'L', url: '/x' } },
      { __component: 'sections.related-events', heading: null, events: { set: [{ documentId: 'd1' }] } },
    ]);
  });
});

describe("Strapi's refusals, pointed into the request", () => {
  const planned = plan({
    seo: { metaDescription: 'no title' },
    sections: [
      { type: 'sections.rich-text', attributes: { body: { type: 'doc', content: [] } } },
      hero({ subheading: 's', cta: { url: '/x' } }),
    ],
    summary: 'x',
  }).fields;

  test.each([
    [['sections', '1', 'heading'], '/data/attributes/sections/1/attributes/heading'],
    [['sections', '1', 'subheading'], '/data/attributes/sections/1/attributes/subheading'],
    [['sections', '1', 'cta', 'label'], '/data/attributes/sections/1/attributes/cta/label'],
    [['sections', '1', 'cta'], '/data/attributes/sections/1/attributes/cta'],
    [['sections', '1', '__component'], '/data/attributes/sections/1/type'],
    [['sections', '1'], '/data/attributes/sections/1'],
    [['sections', '0', 'body', '0', 'children'], '/data/attributes/sections/0/attributes/body'],
    [['sections', '1', 'nonsense'], '/data/attributes/sections/1'],
    [['sections', '9', 'heading'], '/data/attributes/sections'],
    [['sections', 'x'], '/data/attributes/sections'],
    [['sections'], '/data/attributes/sections'],
    [['seo', 'metaTitle'], '/data/attributes/seo/metaTitle'],
    [['summary'], '/data/attributes/summary'],
  ])('%j -> %s', (strapiPath, pointer) => {
    expect(pointerOfPath(strapiPath, planned)).toBe(pointer);
  });

  test('a path that names no planned field has no pointer', () => {
    expect(pointerOfPath(['title'], planned)).toBeNull();
  });

  test('a ValidationError carries the pointers to the error layer; a field the key cannot see stays unnamed', () => {
    const error = Object.assign(new Error('2 errors occurred'), {
      name: 'ValidationError',
      details: {
        errors: [
          { path: ['sections', '1', 'heading'], message: 'heading must be defined' },
          { path: ['seo', 'metaTitle'], message: 'metaTitle must be defined' },
        ],
      },
    });
    const answer = apiErrorOfWrite(withPointers(error, planned), { visible: new Set(['sections']), readable: new Set(['sections']) });
    expect(answer!.status).toBe(422);
    expect(answer!.errors.map((problem) => [problem.source, problem.meta?.reason])).toEqual([
      [{ pointer: '/data/attributes/sections/1/attributes/heading' }, 'validation_failed'],
      [undefined, 'hidden_field_invalid'],
    ]);
    expect(withPointers(new Error('other'), planned)).toBeInstanceOf(Error);
  });
});

describe('lids inside components (atomic operations)', () => {
  const lids = new Map([
    ['e', { resourceId: 'cms:site-a/news', resourceSlug: 'news', documentId: 'doc-e' }],
    ['p', { resourceId: 'cms:site-a/pages', resourceSlug: 'pages', documentId: 'doc-p' }],
  ]);
  const sites = {
    relations: [],
    components: [
      {
        key: 'sections',
        type: 'dynamiczone' as const,
        components: new Map([
          ['sections.related-events', { relations: [{ key: 'events', resourceId: 'cms:site-a/news' }], components: [] }],
          ['sections.hero', { relations: [], components: [] }],
        ]),
      },
    ],
  };

  test('replaced by ids where the zone item holds a relation; problems point at the lid', () => {
    const { attributes, problems } = resolveLocalIds(
      {
        sections: [
          hero({ heading: 'x', cta: { lid: 'e' } }),
          { type: 'sections.related-events', attributes: { events: [{ lid: 'e' }, 'jazz', { lid: 'p' }, { lid: 'zz' }] } },
          'not an item',
        ],
      },
      sites,
      lids,
    );
    expect(attributes.sections).toEqual([
      hero({ heading: 'x', cta: { lid: 'e' } }),
      { type: 'sections.related-events', attributes: { events: [{ id: 'doc-e' }, 'jazz', { lid: 'p' }, { lid: 'zz' }] } },
      'not an item',
    ]);
    expect(problems.map((problem) => [problem.source, problem.meta?.reason])).toEqual([
      [{ pointer: '/data/attributes/sections/1/attributes/events/2/lid' }, 'target_not_found'],
      [{ pointer: '/data/attributes/sections/1/attributes/events/3/lid' }, 'lid_unknown'],
    ]);
  });
});
