/**
 * Lets `@cloudflare/codemode/ai` load in Node, Bun and Deno: `cloudflare:workers` resolves to this
 * package's stand-in (`./cloudflare-workers`). Load it before anything imports the `/ai` entry:
 * `node --import @cordon/cloudflare-codemode/register app.js`, `bun --preload …`, `deno run
 * --preload npm:…`, or `import '@cordon/cloudflare-codemode/register'` in a module that then
 * `await import()`s the app (static imports are linked before any module runs).
 */
import module from 'node:module'
import * as workers from './cloudflare-workers.js'
import { resolve } from './workers-hooks.js'

interface BunPluginBuilder {
  module(specifier: string, callback: () => { exports: Record<string, unknown>; loader: 'object' }): void
}
interface BunRuntime {
  plugin(plugin: { name: string; setup(build: BunPluginBuilder): void }): void
}
/** Node ≥ 22.15's (and Deno 2's) in-thread hooks; they cover `require` too. Absent from @types/node 20. */
type RegisterHooks = (hooks: { resolve: typeof resolve }) => unknown

const bun = (globalThis as { Bun?: BunRuntime }).Bun
const registerHooks = (module as { registerHooks?: RegisterHooks }).registerHooks

if (bun !== undefined) {
  // Bun has no module.register; a runtime plugin makes the specifier a module of the stand-in's exports.
  bun.plugin({
    name: 'cloudflare:workers stand-in',
    setup(build) {
      build.module('cloudflare:workers', () => ({ exports: { ...workers }, loader: 'object' }))
    },
  })
} else if (registerHooks !== undefined) {
  registerHooks({ resolve })
} else {
  module.register('./workers-hooks.js', import.meta.url)
}
