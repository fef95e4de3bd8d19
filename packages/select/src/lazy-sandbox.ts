import type { Sandbox, SandboxBackend } from '@cordon/core'
import { SandboxError } from '@cordon/core/errors'
import { createSandbox as selectSandbox } from './deferred-select.js'
import type { CreateSandboxOptions } from './select-options.js'

/**
 * Where a framework adapter's runs go: a sandbox the user made, a backend to make one over, or
 * this package's choice. Every cordon adapter takes its sandbox this way.
 */
export interface SandboxSource {
  /** A cordon sandbox you own (you dispose it). Its defaults apply to every run. */
  sandbox?: Sandbox
  /** A backend to make the adapter's own sandbox over, e.g. `createQuickJSBackend()`. */
  backend?: SandboxBackend
}

/** An adapter's sandbox, made on first use; `dispose` ends it only if the adapter made it. */
export interface LazySandbox {
  get(): Promise<Sandbox>
  dispose(): Promise<void>
}

/**
 * How the adapter makes its own sandbox: `defaults` for its runs (e.g. durable keys), and what
 * select must find when it picks (`require`, `backendOptions`, …). Not used for a given sandbox.
 */
export type LazySandboxOptions = CreateSandboxOptions

/** `what` names the adapter in errors: "`what` was disposed". */
export function lazySandbox(source: SandboxSource, what: string, options: LazySandboxOptions = {}): LazySandbox {
  if (source.sandbox !== undefined && source.backend !== undefined) {
    throw new SandboxError('INVALID_OPTIONS', `${what}: give a sandbox or a backend, not both`)
  }
  let made: Promise<Sandbox> | undefined
  let disposed = false
  return {
    get() {
      if (disposed) return Promise.reject(new SandboxError('DISPOSED', `${what} was disposed`))
      if (source.sandbox !== undefined) return Promise.resolve(source.sandbox)
      const { backend } = source
      made ??=
        backend !== undefined
          ? import('@cordon/core').then(({ createSandbox }) => createSandbox(backend, options.defaults))
          : selectSandbox(options)
      return made
    },
    async dispose() {
      disposed = true
      if (made !== undefined) await (await made.catch(() => undefined))?.dispose()
    },
  }
}
