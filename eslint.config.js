// One lint config for the whole workspace (ESLint flat config). TypeScript is linted with
// typescript-eslint's type-aware rules: most of cordon is promises, deadlines and values from
// untrusted code, where a floating promise or an unchecked `any` is a real bug. Formatting is
// Prettier's job (eslint-config-prettier turns off the rules that would fight it).
import js from '@eslint/js'
import prettier from 'eslint-config-prettier'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * Source shipped into guest engines as text (Function.prototype.toString). It captures built-ins
 * before guest code runs and calls them detached through Reflect.apply, which TypeScript types as
 * `any` (hence no unbound-method, Function-type or unsafe-any rules: these files check what they
 * get at run time), and it uses no template literals: QuickJS compiles them to
 * String.prototype.concat calls, which the guest may have replaced.
 */
const GUEST_SOURCES = [
  'packages/core/src/guest/codec.ts',
  'packages/core/src/guest/inspect.ts',
  'packages/core/src/guest/runtime.ts',
  'packages/core/src/guest/primordials.ts',
  'packages/core/src/guest/structured-clone.ts',
  // The subprocess backend's guest sources are strings (src/guest/*-source.ts), not functions.
  'packages/backend-ivm/src/guest/*.ts',
  'packages/backend-quickjs/src/guest/*.ts',
]

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/dist-browser/**',
      '**/node_modules/**',
      '**/test-results/**',
      '.bench-results/**',
      '**/coverage/**',
      // Type-checked in a fresh project against the packed tarballs (scripts/pack-install).
      'scripts/pack-install/fixtures/**',
      // Guest code: modules the vetted-modules example hands to the sandbox (they import each other by bare name).
      'examples/vetted-lib/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'no-unused-vars': ['error', { ignoreRestSiblings: true, caughtErrors: 'none' }] },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['examples/*.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' },
      ],
    },
  },
  {
    files: GUEST_SOURCES,
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TemplateLiteral',
          message: 'guest-side source: no template literals (QuickJS compiles them to String.prototype.concat calls)',
        },
      ],
    },
  },
  {
    // Tests poke at decoded JSON, fakes and engine internals on purpose; async fakes need no await.
    files: ['**/test/**/*.ts', 'tests/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Guest programs (run by cordon, not imported): their globals and tools come from the sandbox.
    files: ['examples/*.ts'],
    extends: [tseslint.configs.disableTypeChecked],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
  prettier,
)
