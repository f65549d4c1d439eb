import fc from 'fast-check';
import { allGrants, resolveGrants } from '../../src/plugins/public-api/server/src/grants/resolve';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';

const field = (key: string) => ({
  key,
  label: key,
  type: 'string' as const,
  required: false,
  localized: false,
  attribute: { type: 'string' },
});

const resource = (id: string, mode: 'collection' | 'singleton', fields: string[]): Resource => ({
  id,
  sourceType: id.startsWith('cms:') ? 'cms' : 'native',
  slug: id.split(/[:/]/).pop()!,
  name: id,
  mode,
  uid: 'api::x.x',
  kind: 'collectionType',
  localized: false,
  draftAndPublish: true,
  identifiers: ['slug'],
  deleteMode: 'remove',
  fields: fields.map(field),
});

const resources = [
  resource('native:events', 'collection', ['title', 'startsAt', 'price']),
  resource('cms:site/settings', 'singleton', ['siteName']),
];

test('star expands to the fields that exist now', () => {
  const result = resolveGrants({ resources: { 'native:events': { actions: ['read'], read: '*', write: ['title'] } } }, resources, []);
  expect(result).toEqual({
    ok: true,
    grants: {
      resources: { 'native:events': { actions: ['read'], read: ['title', 'startsAt', 'price'], write: ['title'] } },
      commands: [],
      origins: [],
    },
  });
});

test('every unknown name is reported with its path, and nothing is returned', () => {
  const result = resolveGrants(
    {
      resources: {
        'native:nope': { actions: ['read'] },
        'native:events': { actions: ['read'], read: ['title', 'secret', 'other'], write: ['ghost'] },
        'cms:site/settings': { actions: ['read', 'create', 'delete'] },
      },
      commands: ['launch-rocket'],
      origins: ['https://ok.example', 'not an origin'],
    },
    resources,
    ['newsletter-signup'],
  );
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
    ['resources.native:nope', "Unknown resource 'native:nope'."],
    ['resources.native:events.read', "Unknown fields of native:events: 'secret', 'other'."],
    ['resources.native:events.write', "Unknown field of native:events: 'ghost'."],
    ['resources.cms:site/settings.actions', 'cms:site/settings is a singleton: it supports read and update only, not create, delete.'],
    ['commands', "Unknown command: 'launch-rocket'."],
    ['origins.1', expect.stringContaining("'not an origin'")],
  ]);
});

test('unknown actions and unknown members are rejected by the schema', () => {
  expect(resolveGrants({ resources: { 'native:events': { actions: ['fly'] } } }, resources, []).ok).toBe(false);
  expect(resolveGrants({ resources: {}, extra: true }, resources, []).ok).toBe(false);
  expect(resolveGrants({ resources: { 'native:events': { actions: ['read'], admin: true } } }, resources, []).ok).toBe(false);
  expect(resolveGrants('nope', resources, []).ok).toBe(false);
});

test('all grants is a snapshot with only the actions each resource supports', () => {
  expect(allGrants(resources, ['newsletter-signup'])).toEqual({
    resources: {
      'native:events': {
        actions: ['read', 'create', 'update', 'delete'],
        read: ['title', 'startsAt', 'price'],
        write: ['title', 'startsAt', 'price'],
      },
      'cms:site/settings': { actions: ['read', 'update'], read: ['siteName'], write: ['siteName'] },
    },
    commands: ['newsletter-signup'],
    origins: [],
  });
});

test('for any input, resolved grants only ever name existing resources, fields and commands', () => {
  const names = fc.constantFrom('title', 'startsAt', 'price', 'siteName', 'secret', '*');
  const input = fc.record({
    resources: fc.dictionary(
      fc.constantFrom('native:events', 'cms:site/settings', 'native:nope'),
      fc.record({
        actions: fc.array(fc.constantFrom('read', 'create', 'update', 'delete')),
        read: fc.oneof(fc.constant('*'), fc.array(names)),
        write: fc.oneof(fc.constant('*'), fc.array(names)),
      }),
    ),
    commands: fc.array(fc.constantFrom('newsletter-signup', 'other')),
  });
  fc.assert(
    fc.property(input, (grants) => {
      const result = resolveGrants(grants, resources, ['newsletter-signup']);
      if (!result.ok) return;
      for (const [id, grant] of Object.entries(result.grants.resources)) {
        const known = resources.find((r) => r.id === id)!.fields.map((f) => f.key);
        for (const name of [...grant.read, ...grant.write]) expect(known).toContain(name);
      }
      for (const command of result.grants.commands) expect(command).toBe('newsletter-signup');
    }),
  );
});
