// ESLint for both workspaces, the scripts and the tests: the recommended JavaScript and
// TypeScript rules, and React's hooks rules for the web app. `npm test -- lint` runs it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'web/build/**', 'web/public/**', '.data/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser, Bun: 'readonly' } },
    rules: {
      // `_`-prefixed names are deliberately unused (destructuring away a field, a required parameter)
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // Provider messages and test doubles are untyped JSON, checked field by field where they are read.
    files: ['engine/src/feed/providers/**', 'engine/test/**', 'web/test/**', 'e2e/**', 'seeds/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['web/app/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      // a transaction is a `Db` (shared/sql.ts): a function that only runs statements takes one, so no cast is needed
      'no-restricted-syntax': ['error', {
        selector: "TSAsExpression[typeAnnotation.typeName.name=/^(Sql|Db)$/]",
        message: 'Do not cast to Sql or Db: take a `Db` where a transaction is passed (shared/sql.ts).',
      }],
    },
  },
);
