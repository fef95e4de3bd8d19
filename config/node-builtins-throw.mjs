// An esbuild plugin for browser builds: Node's built-in modules (with or without `node:`) become
// modules that throw when loaded, so a bundler for the web meets no `node:` import, and the code
// that needs one (always loaded lazily, behind a check) fails with a clear error instead.

import { builtinModules } from 'node:module'

/** Every `node:` import, and the bare names of Node's built-ins (`fs`, `http`, …). */
const NODE_BUILTIN = new RegExp(`^(node:.*|${builtinModules.map((name) => name.replace(/[/]/g, '\\/')).join('|')})$`)

/** @type {import('esbuild').Plugin} */
export const nodeBuiltinsThrow = {
  name: 'node-builtins-throw',
  setup(build) {
    build.onResolve({ filter: NODE_BUILTIN }, (args) => ({ path: args.path, namespace: 'node-builtin' }))
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      // An ES module (no CommonJS wrapper, whose helpers a bundler would warn about), so only a
      // dynamic import() may reach one: a static import would throw as its chunk loads.
      contents: `throw new Error(${JSON.stringify(`${args.path} is not available in a browser`)})\nexport {}\n`,
      loader: 'js',
    }))
  },
}
