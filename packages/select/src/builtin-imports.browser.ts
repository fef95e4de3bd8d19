/**
 * How the browser build imports the built-in candidates (this `.browser.ts` variant replaces
 * builtin-imports.ts there). A page resolves no package names at run time, so QuickJS is
 * imported by name for the page's bundler to include (install @cordon/backend-quickjs beside
 * @cordon/select); the two others need Node (child processes, a native addon) and are not
 * imported at all.
 */
const NEEDS_NODE: Record<string, string> = {
  '@cordon/backend-subprocess': 'it runs programs in child processes of Node.js',
  '@cordon/backend-ivm': 'it runs programs in isolated-vm, a native addon for Node.js',
}

export function builtinImport(module: string): (() => Promise<Record<string, unknown>>) | undefined {
  if (module === '@cordon/backend-quickjs') return () => import('@cordon/backend-quickjs')
  const why = NEEDS_NODE[module]
  if (why !== undefined)
    return () => Promise.reject(Object.assign(new Error(`${module} cannot run in a browser: ${why}`), { code: 'ERR_BROWSER' }))
  return undefined
}
