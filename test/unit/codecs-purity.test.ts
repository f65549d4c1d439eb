/**
 * The plugin's codecs (the bottom layer of .dependency-cruiser.cjs) are pure. dependency-cruiser sees
 * imports, so it keeps getService and Strapi's package out of them; it cannot see Strapi's *global*,
 * which any module can call without an import. This test reads every codec module's syntax tree and
 * refuses the identifier `strapi` in it: no global, and no Strapi instance handed in either.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const SERVER = 'src/plugins/public-api/server/src';

// The codecs are whatever the dependency rules call codecs: one definition, read from the rules.
const config = require(path.join(ROOT, '.dependency-cruiser.cjs')) as {
  forbidden: { name: string; from: { path?: string | string[] } }[];
};
const codecRule = config.forbidden.find((rule) => rule.name === 'codecs-are-pure');
const codecPatterns = [codecRule?.from.path ?? []].flat().map((pattern) => new RegExp(pattern));

const sourceFiles = (dir: string): string[] =>
  fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.ts$/.test(entry.name) && !/\.d\.ts$/.test(entry.name) ? [relative] : [];
  });

/** Lines where the identifier `strapi` is used (comments and strings are not identifiers). */
const strapiUses = (fileName: string, text: string): number[] => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === 'strapi') {
      lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
};

const codecFiles = sourceFiles(SERVER).filter((file) => codecPatterns.some((pattern) => pattern.test(file)));

test('the rules name the codecs, and they cover the codec folders', () => {
  expect(codecPatterns.length).toBeGreaterThan(0);
  for (const folder of ['grants', 'query', 'write', 'values', 'registry', 'keys', 'http', 'idempotency']) {
    expect(codecFiles.some((file) => file.startsWith(`${SERVER}/${folder}/`))).toBe(true);
  }
  // The layers that may use Strapi are not codecs.
  for (const file of [
    `${SERVER}/services/records.ts`,
    `${SERVER}/handlers/reads.ts`,
    `${SERVER}/utils/get-service.ts`,
    `${SERVER}/config/index.ts`,
  ]) {
    expect(codecFiles).not.toContain(file);
  }
});

test('the scan finds a use of the Strapi global, and only uses', () => {
  expect(strapiUses('probe.ts', 'export const f = () => strapi.db.query("x");')).toEqual([1]);
  expect(strapiUses('probe.ts', 'export const f = (s: unknown) => s;\nexport const g = (strapi: unknown) => strapi;')).toEqual([2, 2]);
  expect(
    strapiUses('probe.ts', '// strapi.db\nconst text = "strapi.db";\nimport type { Core } from "@strapi/strapi";\ntype S = Core.Strapi;'),
  ).toEqual([]);
});

test.each(codecFiles)('%s does not touch Strapi', (file) => {
  expect(strapiUses(file, fs.readFileSync(path.join(ROOT, file), 'utf8'))).toEqual([]);
});
