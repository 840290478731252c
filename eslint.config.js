// A small rule set, without type information so that it runs in seconds: what the style guide asks and tsc does
// not check (no `any`, no unused code, no duplicate imports).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'bench/dist/**'] },
  {
    files: ['packages/*/src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-duplicate-imports': 'error',
      'prefer-const': 'error',
      eqeqeq: ['error', 'smart'],
      // Parsers of git ref names and terminal output match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests reach into values the way a test must (raw bodies, generic summaries).
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
