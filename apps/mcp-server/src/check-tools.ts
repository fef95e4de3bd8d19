import { isSandboxError, type Sandbox } from '@cordon/core'
import type { GuestNamespace, GuestTool } from './guest-catalog.js'
import { hostTools } from './host-tools.js'

export interface RefusedTool {
  /** `namespace.tool`, or the namespace alone when all its tools were refused. */
  label: string
  reason: string
}

/**
 * Upstream schemas and names are not ours: cordon refuses a run whose tool set has an input
 * schema Ajv cannot compile or a namespace that would shadow a guest built-in (`Math`). One
 * empty run with every tool finds out at startup; only when it is refused are the namespaces,
 * then their tools, tried one by one, so a single bad tool costs only itself.
 */
export async function checkTools(
  sandbox: Sandbox,
  namespaces: readonly GuestNamespace[],
): Promise<{ accepted: GuestNamespace[]; refused: RefusedTool[] }> {
  if ((await refusal(sandbox, namespaces)) === undefined) return { accepted: [...namespaces], refused: [] }
  const accepted: GuestNamespace[] = []
  const refused: RefusedTool[] = []
  for (const namespace of namespaces) {
    if ((await refusal(sandbox, [namespace])) === undefined) {
      accepted.push(namespace)
      continue
    }
    const tools: GuestTool[] = []
    const reasons: RefusedTool[] = []
    for (const tool of namespace.tools) {
      const reason = await refusal(sandbox, [{ ...namespace, tools: [tool] }])
      if (reason === undefined) tools.push(tool)
      else reasons.push({ label: `${namespace.name}.${tool.guestName}`, reason })
    }
    if (tools.length > 0) {
      accepted.push({ ...namespace, tools })
      refused.push(...reasons)
    } else {
      refused.push({ label: namespace.name, reason: reasons[0]?.reason ?? 'refused by cordon' })
    }
  }
  return { accepted, refused }
}

async function refusal(sandbox: Sandbox, namespaces: readonly GuestNamespace[]): Promise<string | undefined> {
  try {
    await sandbox.run('undefined', { tools: hostTools(namespaces, 1) })
    return undefined
  } catch (error) {
    if (isSandboxError(error, 'INVALID_OPTIONS')) return error.message
    throw error
  }
}
