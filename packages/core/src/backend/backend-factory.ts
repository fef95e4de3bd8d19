import type { SandboxBackend } from './v1/sandbox-backend.js'

/**
 * Makes a backend: a package's `createXBackend(options?)`, or a test's `() => createXBackend({ … })`.
 * `@cordon/select` calls it with the caller's `backendOptions`; `@cordon/conformance` calls it
 * without arguments, once per group and once per check that needs its own sandbox.
 */
export type BackendFactory = (options?: object) => SandboxBackend | Promise<SandboxBackend>
