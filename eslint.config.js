// Lint for the whole repository: server (src), tests, benches, scripts and the dashboard (web).
// Formatting is Prettier's (eslint-config-prettier turns off the rules it owns).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'data/**',
      '.data*/**',
      'web/src/api/schema.d.ts',
      'coverage/**',
      'test/.check-*/**',
      '.gen-api-unused/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // A leading underscore marks a parameter or binding kept on purpose (a signature, a rest sibling).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}', 'web/public/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // The server project's test files share a worker's modules (vitest.config.ts, isolate: false): a
    // mocked module or a stubbed global would leak into the files that run after it.
    files: ['src/**/*.test.ts', 'test/**/*.ts', 'web/src/**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['mock', 'doMock', 'stubGlobal', 'stubEnv'].map((property) => ({
          object: 'vi',
          property,
          message: 'Test files share modules and globals: use a real server or pass a dependency instead.',
        })),
      ],
    },
  },
  prettier,
);
