/**
 * Host secrets an escaped guest could read: an environment variable and a file, each
 * holding a random token. Attack checks plant them, run the attack, and fail when a token
 * shows up in anything the run produced (value, error, logs, tool arguments).
 */
export const CANARY_ENV = 'CORDON_CONFORMANCE_CANARY'

interface NodeLike {
  env: Record<string, string | undefined>
}

export interface HostCanary {
  /** Where the guest would look: passed to attack programs as the `__canary` global. */
  readonly where: { env: string; file: string | null }
  /** The tokens found in `text`, described. */
  leaked(text: string): string[]
  remove(): Promise<void>
}

export async function plantCanary(): Promise<HostCanary> {
  const proc = (globalThis as { process?: NodeLike }).process
  const token = (what: string) => `cordon-${what}-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`
  const envToken = token('env')
  const fileToken = token('file')
  if (proc?.env !== undefined) proc.env[CANARY_ENV] = envToken
  const file = await writeFileCanary(fileToken)
  return {
    where: { env: CANARY_ENV, file: file?.path ?? null },
    leaked(text) {
      const found: string[] = []
      if (text.includes(envToken)) found.push(`the host environment variable ${CANARY_ENV}`)
      if (file !== undefined && text.includes(fileToken)) found.push(`the host file ${file.path}`)
      return found
    },
    async remove() {
      if (proc?.env !== undefined) delete proc.env[CANARY_ENV]
      await file?.remove()
    },
  }
}

/** A temporary file holding `content`, where the runtime has node:fs (Node, Bun, Deno). */
async function writeFileCanary(content: string): Promise<{ path: string; remove(): Promise<void> } | undefined> {
  try {
    const fs = await import('node:fs/promises')
    const os = await import('node:os')
    const path = `${os.tmpdir()}/cordon-canary-${Math.random().toString(36).slice(2)}.txt`
    await fs.writeFile(path, content)
    return { path, remove: () => fs.rm(path, { force: true }) }
  } catch {
    return undefined
  }
}
