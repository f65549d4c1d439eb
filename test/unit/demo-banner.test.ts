/**
 * What README.md shows `npm run demo` print is what it prints (issue 33, item 10: the README showed 2 of
 * its 5 curls). The banner is built by scripts/demo.ts's `banner`; the README shows it with the key as `pdk_…`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { banner } from '../../scripts/demo';

test("README.md's demo output is the demo's banner, line for line", () => {
  const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
  const shown = /prints \(after its progress lines\):\n\n```\n([\s\S]*?)\n```/.exec(readme)![1]!;
  const printed = banner('http://localhost:1337', 'pdk_…', 'admin@example.com', 'Demo-Admin-2026', 'created');
  expect(shown.split('\n')).toEqual(printed.split('\n').slice(1, -1));
  expect(shown.match(/^ {3}curl /gm)).toHaveLength(5);
});
