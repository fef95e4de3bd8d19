/**
 * Deliberately broken backends. Each one breaks one promise of the contract; the
 * self-test asserts that the checks guarding that promise fail for it.
 */
import type { LogLevel } from '@cordon/core'
import type { SandboxBackend, ToolBridge } from '@cordon/core/backend'
import { createVmBackend } from './vm-backend.js'

/** Never stops a guest that waits (on a tool, a timer, a promise): it ignores its deadline. */
export const createTimeoutIgnoringBackend = (): SandboxBackend => createVmBackend({ name: 'broken-ignores-timeout', ignoreDeadline: true })

/** Runs every program in one shared context, so globals leak from run to run. */
export const createLeakyGlobalsBackend = (): SandboxBackend => createVmBackend({ name: 'broken-leaks-globals', reuseContext: true })

/** Puts a host function on the guest global and returns host objects from tools. */
export const createHostExposingBackend = (): SandboxBackend => createVmBackend({ name: 'broken-exposes-host', exposeHost: true })

/** Keeps 1 MB of host memory alive for every run. */
export const createMemoryLeakingBackend = (): SandboxBackend =>
  createVmBackend({ name: 'broken-leaks-memory', leakBytesPerRun: 1024 * 1024 })

/** Opens every session on one shared context, so state crosses sessions. */
export const createSessionSharingBackend = (): SandboxBackend =>
  createVmBackend({ name: 'broken-shares-sessions', shareSessionContext: true })

/** Copies the host's environment variables into the guest: a secret reaches guest code. */
export const createEnvExposingBackend = (): SandboxBackend => createVmBackend({ name: 'broken-exposes-env', exposeEnv: true })

/**
 * Holds the guest's console entries back and hands them to the host only when the run is over:
 * `result.logs` is right, but log events no longer arrive in order with tool calls.
 */
export const createLogHoldingBackend = (): SandboxBackend => {
  const backend = createVmBackend({ name: 'broken-holds-logs' })
  return {
    ...backend,
    async execute(request) {
      const held: [LogLevel, string][] = []
      const host: ToolBridge = {
        log: (level, message) => void held.push([level, message]),
        callTool: (name, args) => request.host.callTool(name, args),
        callToolSync: (name, args) => request.host.callToolSync(name, args),
      }
      try {
        return await backend.execute({ ...request, host })
      } finally {
        for (const [level, message] of held) request.host.log(level, message)
      }
    },
  }
}

/** Hands the guest the host's own fetch: no allow list, no address checks, the host's network. */
export const createFetchExposingBackend = (): SandboxBackend => createVmBackend({ name: 'broken-exposes-fetch', exposeFetch: true })

/** Drops the durable clock from the guest's setup: Date and Math.random are the engine's own. */
export const createClockIgnoringBackend = (): SandboxBackend => {
  const backend = createVmBackend({ name: 'broken-ignores-clock' })
  return {
    ...backend,
    execute: (request) => {
      const setup = JSON.parse(request.setup) as Record<string, unknown>
      delete setup.clock
      return backend.execute({ ...request, setup: JSON.stringify(setup) })
    },
  }
}

/** Retries every tool call once, keeping the second answer: host tools run twice. */
export const createToolRetryingBackend = (): SandboxBackend => {
  const backend = createVmBackend({ name: 'broken-retries-tools' })
  return {
    ...backend,
    execute(request) {
      const host: ToolBridge = {
        log: (level, message) => request.host.log(level, message),
        callTool: (name, args) =>
          request.host
            .callTool(name, args)
            .catch(() => undefined)
            .then(() => request.host.callTool(name, args)),
        callToolSync: (name, args) => request.host.callToolSync(name, args),
      }
      return backend.execute({ ...request, host })
    },
  }
}
