// ESLint for the dashboard: JavaScript's and typescript-eslint's recommended
// rules, and the rules of hooks (Preact's hooks follow React's). The plugin's
// other rules are for the React Compiler, which Preact does not use.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'src/openapi.d.ts', 'e2e/artifacts/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      // useLoad(load, deps) runs load as an effect with deps (ui.tsx): its deps are checked as useEffect's.
      'react-hooks/exhaustive-deps': ['error', { additionalHooks: '^useLoad$' }],
      // { file: _, ...rest } is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    files: ['e2e/**', '*.config.*'],
    // The end-to-end tests run in Node and evaluate code in the page.
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ['e2e/**/*.ts'],
    // The API's answers are JSON that the specs read field by field; a
    // fixture's use() is Playwright's, not a hook.
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'react-hooks/rules-of-hooks': 'off' },
  },
);
