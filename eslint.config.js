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
    // Roles by name (issue 23): a role is ROLE.<name> or a capability of engine/src/contract/roles.ts,
    // never a bare number. Not in the files that write the numbers: the names and the permission map.
    files: ['web/app/**/*.{ts,tsx}', 'engine/src/**/*.ts'],
    ignores: ['engine/src/contract/roles.ts', 'web/app/modules/auth/permissions.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...[
        // roleId === 3, user.role_id !== 1, Number(u.role_id) === 3, 5 === role
        'BinaryExpression:matches([left.name=/role/i], [left.property.name=/role/i], [left.arguments.0.property.name=/role/i])[right.raw=/^[1-6]$/]',
        'BinaryExpression:matches([right.name=/role/i], [right.property.name=/role/i])[left.raw=/^[1-6]$/]',
        // switch (caller.roleId) { case 1: … }
        'SwitchStatement:matches([discriminant.name=/role/i], [discriminant.property.name=/role/i]) > SwitchCase[test.raw=/^[1-6]$/]',
        // [1, 2].includes(roleId)
        'CallExpression[callee.property.name=/^(includes|has)$/][callee.object.elements.0.raw=/^[1-6]$/]:matches([arguments.0.name=/role/i], [arguments.0.property.name=/role/i])',
        // { roles: [1, 2] }, { roleId: 3 }, const MEMBER_ROLES = [5, 6], const MANAGER_ROLE = 2
        'Property[key.name=/role/i]:matches([value.elements.0.raw=/^[1-6]$/], [value.expression.elements.0.raw=/^[1-6]$/], [value.raw=/^[1-6]$/])',
        'VariableDeclarator[id.name=/role/i]:matches([init.elements.0.raw=/^[1-6]$/], [init.expression.elements.0.raw=/^[1-6]$/], [init.raw=/^[1-6]$/])',
        // SQL text: role_id = 3, role_id <> 3, role_id IN (1, 2)
        'TemplateElement[value.raw=/role_id\\s*(=|<>|!=|<|>|IN\\s*\\()\\s*[1-6]\\b/i]',
      ].map((selector) => ({ selector, message: 'Name the role: ROLE.<name> or a capability of shared/roles.ts (engine/src/contract/roles.ts), not a bare role number.' }))],
    },
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
