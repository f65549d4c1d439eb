/**
 * No module of the plugin's server keeps state outside Strapi's lifecycle (issue 36): what lives as long
 * as an application (caches, derived keys, counters) is held by a service, made with the application and
 * dropped with it, so two applications booted one after another in one process (as the API suites do)
 * never share it. This test reads every server module's syntax tree and refuses, at its top level, a
 * `let` or `var`, an empty `new Map()` or `new Set()` (filled at run time), and a value made by a
 * `create...()` call (a cache or a holder of its own). A WeakMap keyed by the application, or by an
 * object that belongs to one, is not shared and is not refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const SERVER = 'src/plugins/public-api/server/src';

/** What is kept at a module's top level on purpose: `file:name`, and why no application can see another's. */
const ALLOWED: Record<string, string> = {
  'controllers/admin/answer-as-key.ts:router': 'built from the static route table; it holds no request',
  'middlewares/api-v2.ts:router': 'built from the static route table; it holds no request',
  'middlewares/operator.ts:router': 'built from the static route table; it holds no request',
  'http/base-url.ts:origins': 'a memo of a pure function of the Host header: the same answer in any application',
  'http/canonical-url.ts:normalOrigins': 'a memo of a pure function of the origin: the same answer in any application',
  'query/cursor.ts:fingerprints': 'a memo of a pure function of the query: the same answer in any application',
  'read/load-context.ts:NO_FIELDSETS': 'an empty constant, typed read-only (Fieldsets): nothing adds to it',
  'serialize/record-texts.ts:lastId': 'numbers objects, each of which belongs to one application: no two share a number',
};

const sourceFiles = (dir: string): string[] =>
  fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return /\.ts$/.test(entry.name) && !/\.d\.ts$/.test(entry.name) ? [relative] : [];
  });

const isEmptyCollection = (node: ts.Expression): boolean =>
  ts.isNewExpression(node) &&
  ts.isIdentifier(node.expression) &&
  (node.expression.text === 'Map' || node.expression.text === 'Set') &&
  (node.arguments?.length ?? 0) === 0;

const isMade = (node: ts.Expression): boolean =>
  ts.isCallExpression(node) && ts.isIdentifier(node.expression) && /^create[A-Z]/.test(node.expression.text);

/** The names of the module-level state a module's text declares. */
const moduleState = (fileName: string, text: string): string[] => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of statement.declarationList.declarations) {
      const name = declaration.name.getText(source);
      const init = declaration.initializer;
      if (!constant || (init && (isEmptyCollection(init) || isMade(init)))) names.push(name);
    }
  }
  return names;
};

const files = sourceFiles(SERVER);

test('the scan finds module state, and only state', () => {
  expect(moduleState('probe.ts', 'let cached = null;\nvar count = 0;')).toEqual(['cached', 'count']);
  expect(moduleState('probe.ts', 'const seen = new Map<string, number>();\nconst kept = new Set();')).toEqual(['seen', 'kept']);
  expect(moduleState('probe.ts', 'const reader = createRichtextReader();')).toEqual(['reader']);
  expect(
    moduleState(
      'probe.ts',
      [
        "const NAMES = new Set(['a', 'b']);",
        'const byApp = new WeakMap<object, number>();',
        'export const make = () => { let inside = 0; const cache = new Map(); return () => ++inside + cache.size; };',
        'const LIMIT = 10;',
      ].join('\n'),
    ),
  ).toEqual([]);
});

test('every allowed entry still names module state (none is left behind by a change)', () => {
  for (const entry of Object.keys(ALLOWED)) {
    const [file, name] = entry.split(':') as [string, string];
    expect(moduleState(file, fs.readFileSync(path.join(ROOT, SERVER, file), 'utf8'))).toContain(name);
  }
});

test.each(files)('%s keeps no state outside Strapi', (file) => {
  const relative = file.slice(SERVER.length + 1);
  const state = moduleState(file, fs.readFileSync(path.join(ROOT, file), 'utf8')).filter(
    (name) => ALLOWED[`${relative}:${name}`] === undefined,
  );
  expect(state).toEqual([]);
});
