// npm test lints with this (npm run lint): typescript-eslint's recommended rules with type information
// (recommendedTypeChecked): a promise nobody awaits or handles, an unsafe any, a method passed without its
// this, an await of nothing are errors.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerConfigs } from './scripts/layers.mjs';
import { uiSinkConfigs } from './scripts/uiSinks.mjs';
import { emptyCatchPlugin } from './scripts/emptyCatch.mjs';

export default tseslint.config(
  { ignores: ['dist/', 'out/', '.out-*/', 'node_modules/', '.vscode-test/', 'test-artifacts/', 'media/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { holdfast: emptyCatchPlugin },
    rules: {
      // Enums here are named constants, as VS Code's FlowControlConstants: limits compared with numbers, and
      // error codes with the wire's strings, on purpose.
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      // An async function that awaits nothing is how a handler's throw becomes its rejection (daemon.ts's
      // handle, the request tables): the request path relies on it.
      '@typescript-eslint/require-await': 'off',
      'holdfast/empty-catch': 'error',
      // A type-only import says so, and is erased: a layer that needs only a type loads nothing.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-empty': ['error', { allowEmptyCatch: false }],
      // A terminal's code matches control characters on purpose (escapes, C0, C1).
      'no-control-regex': 'off',
      // A timer or listener declared before the closure that clears it, then assigned once.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // A test asserts on what it parsed (a CLI's JSON, a daemon's frames): that is `any` by design there.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // A reader takes in a file or a function whole. A longer one says why in its header:
    // /* eslint-disable max-lines -- reason */ at its top, or the same line before the function.
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 350 }],
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
  ...layerConfigs,
  ...uiSinkConfigs,
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly' } },
  },
);
