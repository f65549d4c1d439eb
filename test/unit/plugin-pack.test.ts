/**
 * What `npm run plugin:pack` lets into the plugin's tarball (scripts/plugin.js): the manifest, its
 * documents, the bin and the built entries; never sources, source maps, tests, scratch files or secrets.
 */
import { unpackable } from '../../scripts/plugin';

const BUILT = [
  'package.json',
  'README.md',
  'LICENSE',
  'bin/public-api.js',
  'dist/server/index.js',
  'dist/transform-worker/index.js',
  'dist/cli/index.js',
  'dist/admin/index.js',
  'dist/admin/index.mjs',
  'dist/admin/keys-Dg8Xu3Sx.mjs',
  'dist/admin/keys-cVlKWhIu.js',
];

test('the build, the manifest, its documents and the bin are packable', () => {
  expect(unpackable(BUILT)).toEqual([]);
});

test.each([
  'server/src/index.ts',
  'admin/src/index.ts',
  'cli/src/key.ts',
  'shared/contracts/keys.ts',
  'dist/server/index.js.map',
  'dist/server/index.mjs',
  'dist/.source-hash',
  'tsconfig.json',
  '.env',
  '.tmp/plugin/old.tgz',
  'test/unit/keys.test.ts',
  'node_modules/zod/package.json',
  'dist/admin/nested/chunk.js',
])('%s is refused', (file) => {
  expect(unpackable([...BUILT, file])).toEqual([file]);
});
