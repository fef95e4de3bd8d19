/**
 * A stand-in for the `cloudflare:workers` module, for the parts of `@cloudflare/codemode` that load
 * outside Cloudflare's runtime: its `/ai` entry extends `WorkerEntrypoint` (its connector base
 * class) and needs nothing else from the module. Only that class is here; `./register` points
 * `cloudflare:workers` at this file. Code that needs more of Cloudflare's runtime (Durable Objects,
 * Workers RPC, the Worker Loader) does not run outside it, and importing it fails as before.
 */

/** What Cloudflare's `WorkerEntrypoint` keeps: the execution context and the environment it was made with. */
export class WorkerEntrypoint<Env = unknown> {
  protected ctx: unknown
  protected env: Env

  constructor(ctx: unknown, env: Env) {
    this.ctx = ctx
    this.env = env
  }
}
