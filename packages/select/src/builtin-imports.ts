/**
 * How the built-in candidates are imported. Here (Node, Bun, Deno): by the runtime's own module
 * resolution at run time (candidates.ts), so an uninstalled backend is a report, not a crash.
 * The browser build takes builtin-imports.browser.ts instead (config/browser-plugins.mjs).
 */
export function builtinImport(_module: string): (() => Promise<Record<string, unknown>>) | undefined {
  return undefined
}
