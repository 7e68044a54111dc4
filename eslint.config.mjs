// Lint rules for cckit's TypeScript (typescript-eslint's recommended set); Prettier owns the layout.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'runs/', '.cckit-cache/', 'extension/dist/', 'extension/out/', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // Heavy or optional modules (tfjs, its native packages, sharp, the PTB lexer) are loaded with a
      // typed `require` at first use, so commands that never need them start fast and run without them.
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
);
