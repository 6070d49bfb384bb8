// ESLint (flat config): typescript-eslint's recommended rules for all TypeScript, React's hooks rules for the renderer.
// Formatting is Prettier's business (npm run format:check); import cycles are checked by madge (npm run lint:cycles).
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'out/', 'bench/results/', 'test/fixtures/mcp-rewind-cache/', '.venv-py/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_`-prefixed names are deliberate (destructuring a field away, an unused parameter kept for its position)
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
        },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}', 'src/preload/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // React Compiler diagnostics (new in react-hooks 7): reported as warnings until the renderer is reviewed for them
      'react-hooks/refs': 'warn',
      'react-hooks/purity': 'warn',
      'react-hooks/set-state-in-effect': 'warn',
      'react-hooks/incompatible-library': 'warn',
    },
  },
  {
    // views and components ask the engine through the stores and hooks, so one place says what each call does
    files: ['src/renderer/src/views/**/*.{ts,tsx}', 'src/renderer/src/components/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '/api/current(\\.js)?$', message: 'call the engine from a store or a hook' }] },
      ],
    },
  },
);
