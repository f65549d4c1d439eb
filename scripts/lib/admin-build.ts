/**
 * Whether the admin panel bundle is missing or older than what it is built from, so the demo builds
 * it on the first run and reuses it afterwards.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const SOURCES = [
  // The plugin's admin as its package's build has it (scripts/plugin.js builds it from admin/ and shared/).
  'src/plugins/public-api/dist/admin',
  'src/admin',
  'package-lock.json',
  'config/admin.ts',
  'config/plugins.ts',
];

const filesUnder = (entry: string): string[] => {
  if (!fs.existsSync(entry)) return [];
  if (fs.statSync(entry).isFile()) return [entry];
  return fs
    .readdirSync(entry, { withFileTypes: true })
    .flatMap((child) => filesUnder(path.join(entry, child.name)))
    .sort();
};

/** A hash of every file the admin bundle is built from. */
export const adminSourceHash = (root: string): string => {
  const hash = createHash('sha256');
  for (const source of SOURCES) {
    for (const file of filesUnder(path.join(root, source))) {
      hash.update(path.relative(root, file)).update('\0').update(fs.readFileSync(file)).update('\0');
    }
  }
  return hash.digest('hex');
};

const stampFile = (root: string) => path.join(root, 'dist', 'build', '.source-hash');

export const adminBuildIsCurrent = (root: string): boolean => {
  const index = path.join(root, 'dist', 'build', 'index.html');
  const stamp = stampFile(root);
  return fs.existsSync(index) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === adminSourceHash(root);
};

export const markAdminBuild = (root: string): void => {
  fs.writeFileSync(stampFile(root), adminSourceHash(root));
};
