// Lint rules every workspace follows; formatting is Prettier's (eslint-config-prettier turns off what it owns).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/.data/**', '**/.turbo/**', '**/coverage/**', '**/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // GraphQL results, JSON bodies and test answers are `any` by nature at the edges; tsc strict guards the rest.
      '@typescript-eslint/no-explicit-any': 'off',
      // tsc reports unused locals and parameters (noUnusedLocals/noUnusedParameters); one tool for it.
      '@typescript-eslint/no-unused-vars': 'off',
      // Money paths: == null is the one allowed loose comparison.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
      // `ws` ships no types; one local declaration file is referenced by path where it is needed.
      '@typescript-eslint/triple-slash-reference': ['error', { path: 'always', types: 'prefer-import', lib: 'always' }],
    },
  },
  {
    // Launchers, CLIs and benchmarks print for people; tests may too.
    files: [
      '**/main.ts',
      '**/cli.ts',
      'bench/**',
      'scripts/**',
      '**/*.spec.ts',
      '**/*.e2e.ts',
      'test/**',
      '**/demo/**',
    ],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
