import { createSandbox, type SandboxBackend } from '@cordon/core'
import { selectBackend } from '@cordon/select'

/**
 * How long select's probe of each candidate may take when the server chooses its backend. A
 * server chooses once, for its whole life, and reports ready only after: a machine busy at boot
 * (a deploy starting many processes) must not leave it on a weaker backend than the host allows.
 */
export const SERVER_PROBE_TIMEOUT_MS = 30_000

export interface LocalBackend {
  backend: SandboxBackend
  /** Why this backend, and which stronger ones were passed over and why (select's summary). */
  why: string
}

/** The backend the server runs programs on: the caller's instance, or the one select picks here. */
export async function localBackend(choice: string | SandboxBackend): Promise<LocalBackend> {
  if (typeof choice !== 'string') return { backend: choice, why: 'the instance given to startServer' }
  const forced = choice === 'auto' ? {} : { backend: choice }
  const { backend, report } = await selectBackend({ ...forced, probeTimeoutMs: SERVER_PROBE_TIMEOUT_MS })
  return { backend, why: report.summary }
}

/**
 * Runs one program, so the first caller does not pay for the engine's start (a child process, a
 * compiled WebAssembly module); the server reports ready only after it. The sandbox is not
 * disposed: it would dispose the backend it shares.
 */
export async function warmUp(backend: SandboxBackend): Promise<void> {
  const result = await createSandbox(backend).run('6 * 7', { timeoutMs: 30_000 })
  if (!result.ok) throw new Error(`the ${backend.name} backend failed its first run: ${result.error.code} ${result.error.message}`)
}
