/**
 * The read vocabulary kept per projection (grants/read-vocabulary.ts): built once for a projection object,
 * equal to what building it afresh gives, rebuilt for a new projection (new grants) and for a new locale
 * list.
 */
import { recordTypeTree } from '../../src/plugins/public-api/server/src/grants/fieldset-projection';
import { includeTree, project, queryVocabulary, type Projection } from '../../src/plugins/public-api/server/src/grants/projection';
import { readTrees, readVocabulary } from '../../src/plugins/public-api/server/src/grants/read-vocabulary';
import { resolveGrants } from '../../src/plugins/public-api/server/src/grants/resolve';
import { targetResolver } from '../../src/plugins/public-api/server/src/grants/targets';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';
import { demoResources } from '../helpers/registry';

const resources = demoResources();
const resolve = targetResolver(resources);
const events = resources.find((resource) => resource.id === 'native:events')!;

const projectorOf = (input: unknown) => {
  const resolved = resolveGrants(input, resources, []);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  const cache = new Map<string, Projection>();
  return (resource: Resource): Projection => {
    let projection = cache.get(resource.id);
    if (!projection) cache.set(resource.id, (projection = project(resolved.grants, resource, resolve)));
    return projection;
  };
};

const EVERYTHING = {
  resources: {
    'native:events': { actions: ['read'], read: ['title', 'venue', 'festival'], write: [] },
    'native:buildings': { actions: ['read'], read: ['name'], write: [] },
    'native:festivals': { actions: ['read'], read: ['name'], write: [] },
  },
  commands: [],
  origins: [],
};
const EVENTS_ONLY = {
  resources: { 'native:events': { actions: ['read'], read: ['title', 'venue'], write: [] } },
  commands: [],
  origins: [],
};

test('built once per projection, and equal to building afresh', () => {
  const projectionOf = projectorOf(EVERYTHING);
  const projection = projectionOf(events);
  const trees = readTrees(projection, projectionOf);
  expect(readTrees(projection, projectionOf)).toBe(trees);
  expect(trees.include).toEqual(includeTree(projection, projectionOf));
  expect(trees.records).toEqual(recordTypeTree(projection, projectionOf));
  expect([...trees.include.keys()].sort()).toEqual(['festival', 'venue']);

  const locales = ['de', 'en'];
  const vocabulary = readVocabulary(projection, projectionOf, locales);
  expect(readVocabulary(projection, projectionOf, locales)).toBe(vocabulary);
  expect(vocabulary).toEqual(queryVocabulary(projection, locales, trees.include, trees.records));
});

test('new grants (a new projection) and a new locale list are seen at once', () => {
  const wide = projectorOf(EVERYTHING);
  const narrow = projectorOf(EVENTS_ONLY);
  const before = readTrees(wide(events), wide);
  const after = readTrees(narrow(events), narrow);
  expect(after).not.toBe(before);
  // The venue's target is not granted: nothing to expand.
  expect([...after.include.keys()]).toEqual([]);

  const first = readVocabulary(wide(events), wide, ['en']);
  const reloaded = readVocabulary(wide(events), wide, ['de', 'en']);
  expect(reloaded).not.toBe(first);
  expect(reloaded.locales).toEqual(['de', 'en']);
});
