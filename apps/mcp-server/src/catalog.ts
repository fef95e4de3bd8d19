import type { Sandbox, ToolSet } from '@cordon/core'
import { checkTools, type RefusedTool } from './check-tools.js'
import { declarationsFor, type Declarations } from './declarations.js'
import { guestNamespace, type GuestNamespace } from './guest-catalog.js'
import { hostTools, type NeedsApproval } from './host-tools.js'
import { log } from './log.js'
import type { UnavailableUpstream } from './start-upstreams.js'
import { statusListeners, type Upstream } from './upstream.js'

/** What the sandbox offers right now: the namespaces cordon accepted, their declarations and tool set. */
export interface CatalogView {
  namespaces: readonly GuestNamespace[]
  refused: readonly RefusedTool[]
  declarations: Declarations
  /** One object per view: core caches its checks and compiled schemas per tool set. */
  tools: ToolSet
  /** Upstreams that did not start (the server runs without them). */
  unavailable: readonly UnavailableUpstream[]
  /** Upstreams that started but cannot be called now. */
  down: readonly UnavailableUpstream[]
}

/**
 * The upstream catalog, which changes while the server runs: an upstream goes down or comes
 * back, or a remote upstream that was unreachable at startup connects later (`add`). Every
 * MCP server (one per HTTP session) reads `view()` at each request and is told of changes.
 */
export interface Catalog {
  view(): CatalogView
  /** An upstream that started late: its tools are checked, declared and offered from now on. */
  add(upstream: Upstream): Promise<void>
  onChange(listener: () => void): () => void
}

export async function createCatalog(
  sandbox: Sandbox,
  upstreams: Upstream[],
  unavailable: UnavailableUpstream[],
  callTimeoutMs: number,
  needsApproval?: NeedsApproval,
): Promise<Catalog> {
  const listeners = statusListeners()
  let built: Omit<CatalogView, 'down' | 'unavailable'>

  const build = async (): Promise<Omit<CatalogView, 'down' | 'unavailable'>> => {
    const { accepted: namespaces, refused } = await checkTools(sandbox, upstreams.map(guestNamespace))
    return {
      namespaces,
      refused,
      declarations: await declarationsFor(namespaces),
      tools: hostTools(namespaces, callTimeoutMs, needsApproval),
    }
  }
  built = await build()
  for (const { label, reason } of built.refused) log(`cordon refused ${label}, it is left out: ${reason}`)
  for (const upstream of upstreams) upstream.onStatusChange(() => listeners.notify())

  return {
    view: () => ({
      ...built,
      unavailable,
      down: upstreams.flatMap((upstream) => {
        const status = upstream.status()
        return status.available ? [] : [{ name: upstream.name, reason: status.reason }]
      }),
    }),
    async add(upstream) {
      upstreams.push(upstream)
      const at = unavailable.findIndex(({ name }) => name === upstream.name)
      if (at !== -1) unavailable.splice(at, 1)
      const next = await build()
      for (const { label, reason } of next.refused) {
        if (label === upstream.name || label.startsWith(`${upstream.name}.`)) log(`cordon refused ${label}, it is left out: ${reason}`)
      }
      built = next
      upstream.onStatusChange(() => listeners.notify())
      listeners.notify()
    },
    onChange: (listener) => listeners.add(listener),
  }
}
