import { createSandbox, type SandboxBackend } from '@cordon/core'
import { selectBackend } from '@cordon/select'

/** The backend the server runs programs on: the caller's instance, or the one select picks here. */
export async function localBackend(choice: string | SandboxBackend): Promise<SandboxBackend> {
  if (typeof choice !== 'string') return choice
  const { backend } = await selectBackend(choice === 'auto' ? {} : { backend: choice })
  return backend
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
