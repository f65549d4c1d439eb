/**
 * Which environment variables the application's own code reads: every `process.env.NAME`, Strapi's
 * `env('NAME')` / `env.int('NAME')` helpers in config/, `env.NAME` on an environment object handed to a pure
 * settings module, and the settings modules' `(env, 'NAME')` helpers. Read from the sources of src/, config/
 * and scripts/ (what runs in production and what an operator runs), the admin panel's browser code
 * excepted (it has no environment).
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const DIRECTORIES = ['src', 'config', 'scripts'];
const SKIP = /(^|\/)(node_modules|dist|build|\.cache|\.tmp)(\/|$)|^src\/admin\/|^src\/plugins\/[^/]+\/admin\//;

const NAME = '([A-Z][A-Z0-9_]*)';
const READS = [
  new RegExp(`process\\.env\\.${NAME}\\b`, 'g'),
  new RegExp(`process\\.env\\[\\s*['"]${NAME}['"]\\s*\\]`, 'g'),
  new RegExp(`\\benv(?:\\.(?:int|bool|json|array|float|date|oneOf))?\\(\\s*['"]${NAME}['"]`, 'g'),
  new RegExp(`\\benv\\.${NAME}\\b`, 'g'),
  new RegExp(`\\(\\s*env\\s*,\\s*['"]${NAME}['"]`, 'g'),
];

const sourceFiles = (directory: string): string[] =>
  fs.readdirSync(path.join(ROOT, directory), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(directory, entry.name);
    if (SKIP.test(relative)) return [];
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.(ts|js|cjs|mjs)$/.test(entry.name) && !/\.d\.ts$/.test(entry.name) ? [relative] : [];
  });

/** Comments removed, so that a variable named in prose is not taken for one that is read. */
const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

/** Each variable read, with the files that read it (relative to the application root). */
export const environmentReads = (): Map<string, string[]> => {
  const reads = new Map<string, string[]>();
  for (const file of DIRECTORIES.flatMap(sourceFiles)) {
    const text = withoutComments(fs.readFileSync(path.join(ROOT, file), 'utf8'));
    for (const pattern of READS) {
      for (const match of text.matchAll(pattern)) {
        const files = reads.get(match[1]!) ?? [];
        if (!files.includes(file)) files.push(file);
        reads.set(match[1]!, files);
      }
    }
  }
  return reads;
};
