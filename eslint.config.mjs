// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules over the application, the
// plugin (server and admin), the scripts, benchmarks and tests; the rules of hooks in the admin panel.
// Formatting is Prettier's job (.prettierrc.json): eslint-config-prettier turns off the rules it owns.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The field-type names no module outside server/src/fields/ may compare (the rule below). */
const FIELD_TYPE_NAMES =
  '/^(component|components|dynamiczone|relation|relations|media|images|files|richtext|markdown|tags|select|datetime)$/';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'src/plugins/public-api/dist/**',
      'build/**',
      '.cache/**',
      '.strapi/**',
      '.tmp/**',
      'coverage/**',
      'public/**',
      'types/generated/**',
      'bench/.data/**',
      'test/.artifacts/**',
      'node_modules/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // `_`-prefixed names are deliberately unused (positional parameters, destructuring that drops a key).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // The admin routes' request/response types follow Strapi's own contracts: `export declare namespace X { Request; Response }`.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
    },
  },
  {
    // CommonJS: Strapi's entry files, jest configs and reporters, the scripts that start before TypeScript.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/plugins/public-api/admin/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    // The two rules of hooks. The plugin's other recommended rules are written for the React Compiler, which
    // Strapi's admin (React 18) does not use.
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // Field knowledge lives in server/src/fields/ (issue 36): elsewhere a field's kind is asked of its codec
    // (fields/table.ts, fields/items.ts), a Strapi attribute's of fields/strapi-attributes.ts, never by
    // comparing a `type` with their names. The names that are the plugin's field types or Strapi's structural attribute
    // types; scalar names (string, text, number, date, image, ...) are other vocabularies' too (JSON
    // Schema, richtext nodes).
    files: ['src/plugins/public-api/server/src/**/*.ts'],
    ignores: ['src/plugins/public-api/server/src/fields/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          ['left', 'right'],
          ['right', 'left'],
        ].map(([member, literal]) => ({
          selector: `BinaryExpression[operator=/^[!=]==?$/][${member}.property.name='type'][${literal}.value=${FIELD_TYPE_NAMES}]`,
          message: 'Compare no field-type name outside server/src/fields/: ask the field codecs (fields/table.ts, fields/items.ts).',
        })),
        {
          selector: `SwitchStatement[discriminant.property.name='type'] > SwitchCase > Literal.test[value=${FIELD_TYPE_NAMES}]`,
          message: 'Switch on no field-type name outside server/src/fields/: ask the field codecs (fields/table.ts, fields/items.ts).',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    languageOptions: { globals: { ...globals.jest } },
    rules: {
      // Tests read response bodies (supertest types them `any`) and reach into documents by path.
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests load compiled output, configs and CommonJS helpers by path at run time.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  prettier,
);
