import { resourcePath } from '../../src/plugins/public-api/server/src/registry/paths';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';

const resource = (overrides: Partial<Resource>): Resource =>
  ({ id: 'native:events', sourceType: 'native', slug: 'events', name: 'Events', mode: 'collection', ...overrides }) as Resource;

describe('resourcePath: where a resource lives below the API base', () => {
  test('a native resource is its slug', () => {
    expect(resourcePath(resource({}))).toBe('/events');
  });

  test("a CMS resource is below its website's slug", () => {
    const pages = resource({
      id: 'cms:city-guide/pages',
      sourceType: 'cms',
      slug: 'pages',
      website: { id: 1, documentId: 'w1', slug: 'city-guide', name: 'City guide' },
    });
    expect(resourcePath(pages)).toBe('/cms/city-guide/pages');
  });

  test('a CMS resource without its website has no path (never a native one)', () => {
    expect(() => resourcePath(resource({ id: 'cms:gone/pages', sourceType: 'cms', slug: 'pages' }))).toThrow('cms:gone/pages');
  });
});
