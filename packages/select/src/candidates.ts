import { builtinImport } from './builtin-imports.js'

/**
 * One backend select can try. The three built-ins are below; passing your own list
 * (`candidates` option) is an advanced seam for bundlers, third-party backends and tests.
 */
export interface BackendCandidate {
  /** Short name used by `backend`, `prefer`, `exclude`, CORDON_BACKEND and CORDON_DISABLE. */
  name: string
  /** Place in the strength ranking: 1 is the strongest. Ties keep list order. */
  rank: number
  /** Package imported lazily, on first probe: `await import(module)`. */
  module: string
  /** Name of the factory the package exports. */
  factory: string
  /** Shell command that installs it; the fix shown when the package is missing. */
  install: string
  /** Replaces `import(module)`: resolves the module's exports. */
  load?: () => Promise<Record<string, unknown>>
}

/** The built-in ranking; README.md ("Ranking") gives the reasons. */
export const BUILTIN_CANDIDATES: readonly BackendCandidate[] = Object.freeze([
  Object.freeze({
    name: 'subprocess',
    rank: 1,
    module: '@cordon/backend-subprocess',
    factory: 'createSubprocessBackend',
    install: 'npm install @cordon/backend-subprocess',
  }),
  Object.freeze({
    name: 'quickjs',
    rank: 2,
    module: '@cordon/backend-quickjs',
    factory: 'createQuickJSBackend',
    install: 'npm install @cordon/backend-quickjs',
  }),
  Object.freeze({
    name: 'ivm',
    rank: 3,
    module: '@cordon/backend-ivm',
    factory: 'createIvmBackend',
    install: 'npm install @cordon/backend-ivm', // its optional dependencies pick the isolated-vm for this Node
  }),
])

/** The built-in names, strongest first. */
export const BACKEND_NAMES: readonly string[] = BUILTIN_CANDIDATES.map((candidate) => candidate.name)

/** Imports the candidate's module; rejects with the runtime's own error when it cannot. */
export async function importCandidate(candidate: BackendCandidate): Promise<Record<string, unknown>> {
  if (candidate.load) return candidate.load()
  // The browser build imports the built-ins by name, for the page's bundler (builtin-imports.browser.ts).
  const builtin = builtinImport(candidate.module)
  if (builtin !== undefined) return builtin()
  const specifier = candidate.module
  return (await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)) as Record<string, unknown>
}
