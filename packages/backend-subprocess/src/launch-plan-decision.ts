/**
 * What a launch-plan cache entry holds — the probe's decision, never a path to run — and how an
 * entry becomes a launch plan again: every field is checked, and the layers it kept must be a
 * subset of the wrappers found now, else the entry is refused (and the caller probes).
 */
import { describeLayers, type Layers, type PermissionFlag } from './launch-plan.js'
import type { ResolvedOptions } from './options.js'
import type { Diagnostics, LaunchResult } from './probe.js'

/** This process's entry in the cache, and what it was keyed on (launch-plan-cache.ts). */
export interface PlanCacheSlot {
  readonly dir: string
  readonly file: string
  /** The SHA-256 of everything the decision depends on: the file's name, and stored in it. */
  readonly key: string
  readonly uid: number
  readonly nodePath: string
  readonly entryPath: string
  /** The Linux wrappers found now (undefined: not found). */
  readonly wrappers: { prlimit?: string | undefined; setpriv?: string | undefined; unshare?: string | undefined }
  readonly settings: ResolvedOptions
}

interface StoredDecision {
  format: 1
  key: string
  probedAt: string
  nodeVersion: string
  permissionFlag: PermissionFlag
  layers: {
    dataLimit: boolean
    parentDeath: boolean
    namespaces: { userNamespace: boolean; network: boolean } | null
    dropUser: boolean
  }
  /** The idle child's data segment, the base of the `prlimit --data` ceiling. */
  baselineKb: number | null
  network: 'namespace' | 'permission-model' | 'none'
  notes: string[]
  /**
   * The engine that `engine: 'auto'` checked in a child of this plan and found working: a later
   * backend starts it without a check run of its own (chosen-backend.ts). Only the first choice is
   * remembered, so an engine installed later is never passed over for a remembered second choice.
   */
  engine?: RememberedEngine
}

/** The engine a cache entry may remember (see StoredDecision.engine). */
export type RememberedEngine = 'isolated-vm'

/** Keyed so that the compiler says when the probe learns a new flag. */
const PERMISSION_FLAGS: Record<PermissionFlag, true> = { '--permission': true, '--experimental-permission': true }
const NETWORK_VERDICTS = ['namespace', 'permission-model', 'none']
/** A data segment larger than 64 GiB is not an idle Node. */
const MAX_BASELINE_KB = 64 * 1024 * 1024
const MAX_NOTES = 32

export function decisionOf(result: LaunchResult & { ok: true }, key: string): StoredDecision {
  const { permissionFlag, layers } = result.plan
  const { nodeVersion = 'unknown', network, notes } = result.diagnostics
  return {
    format: 1,
    key,
    // Kept when an entry is written again to remember its engine.
    probedAt: result.diagnostics.launchPlan?.probedAt ?? new Date().toISOString(),
    nodeVersion,
    permissionFlag,
    layers: {
      dataLimit: layers.dataLimit !== undefined,
      parentDeath: layers.parentDeath !== undefined,
      namespaces: layers.namespaces ? { userNamespace: layers.namespaces.userNamespace, network: layers.namespaces.network } : null,
      dropUser: layers.dropUser !== undefined,
    },
    baselineKb: layers.dataLimit?.baselineKb ?? null,
    network: network === 'unknown' ? 'none' : network,
    notes: [...notes],
    ...(result.diagnostics.launchPlan?.engine === undefined ? {} : { engine: result.diagnostics.launchPlan.engine }),
  }
}

/** The launch result an entry stands for here and now, or why it does not fit. */
export function resultOf(stored: unknown, slot: PlanCacheSlot): LaunchResult | string {
  const decision = checkShape(stored)
  if (typeof decision === 'string') return `it is malformed (${decision})`
  if (decision.key !== slot.key) return 'it was stored under another key'
  const layers = layersHere(decision, slot)
  if (typeof layers === 'string') return layers
  if (decision.network === 'namespace' && layers.namespaces?.network !== true)
    return 'its network verdict needs a network namespace it does not use'
  // The probe refuses such a plan; an entry must not accept what the probe would refuse.
  if (slot.settings.networkIsolation === 'required' && decision.network === 'none')
    return "networkIsolation is 'required' and its child has network"
  const plan = { nodePath: slot.nodePath, entryPath: slot.entryPath, permissionFlag: decision.permissionFlag, layers }
  const diagnostics: Diagnostics = {
    available: true,
    nodePath: slot.nodePath,
    nodeVersion: decision.nodeVersion,
    permissionFlag: decision.permissionFlag,
    layers: describeLayers(layers),
    network: decision.network,
    notes: [...decision.notes],
    launchPlan: { source: 'cache', file: slot.file, probedAt: decision.probedAt, ...(decision.engine ? { engine: decision.engine } : {}) },
  }
  return { ok: true, plan, diagnostics }
}

/** The stored layers with the wrappers' paths of now; refused unless every one is found here. */
function layersHere(decision: StoredDecision, slot: PlanCacheSlot): Layers | string {
  const { prlimit, setpriv, unshare } = slot.wrappers
  const stored = decision.layers
  const layers: Layers = {}
  if (stored.dataLimit) {
    if (decision.baselineKb === null) return "it keeps prlimit without the idle child's baselineKb"
    if (prlimit === undefined) return 'it uses prlimit, which is not found now'
    layers.dataLimit = { prlimit, baselineKb: decision.baselineKb }
  }
  if (stored.parentDeath) {
    if (setpriv === undefined) return 'it uses setpriv, which is not found now'
    layers.parentDeath = { setpriv }
  }
  if (stored.namespaces !== null) {
    if (unshare === undefined) return 'it uses unshare, which is not found now'
    if (stored.namespaces.network !== (slot.settings.networkIsolation !== 'off'))
      return 'its network namespace does not match networkIsolation'
    // Field by field: an entry's extra fields (a path, say) must never reach the plan.
    layers.namespaces = { unshare, userNamespace: stored.namespaces.userNamespace, network: stored.namespaces.network }
  }
  if (stored.dropUser) {
    // As the probe: only a root host drops to nobody, and never inside a user namespace.
    if (setpriv === undefined || slot.uid !== 0 || stored.namespaces?.userNamespace === true)
      return 'it drops to nobody where that cannot work'
    layers.dropUser = { setpriv }
  }
  return layers
}

/** The entry as a StoredDecision, or the first field that is wrong. */
function checkShape(value: unknown): StoredDecision | string {
  if (!isRecord(value)) return 'not an object'
  const { format, key, probedAt, nodeVersion, permissionFlag, layers, baselineKb, network, notes, engine } = value
  if (format !== 1) return 'format'
  if (typeof key !== 'string') return 'key'
  if (typeof probedAt !== 'string' || Number.isNaN(Date.parse(probedAt))) return 'probedAt'
  if (typeof nodeVersion !== 'string' || nodeVersion.length > 64) return 'nodeVersion'
  if (typeof permissionFlag !== 'string' || !Object.hasOwn(PERMISSION_FLAGS, permissionFlag)) return 'permissionFlag'
  if (!isRecord(layers)) return 'layers'
  const { dataLimit, parentDeath, namespaces, dropUser } = layers
  if (typeof dataLimit !== 'boolean' || typeof parentDeath !== 'boolean' || typeof dropUser !== 'boolean') return 'layers'
  if (
    namespaces !== null &&
    (!isRecord(namespaces) || typeof namespaces.userNamespace !== 'boolean' || typeof namespaces.network !== 'boolean')
  ) {
    return 'layers.namespaces'
  }
  if (baselineKb !== null && (!Number.isInteger(baselineKb) || (baselineKb as number) <= 0 || (baselineKb as number) > MAX_BASELINE_KB))
    return 'baselineKb'
  if (typeof network !== 'string' || !NETWORK_VERDICTS.includes(network)) return 'network'
  if (!Array.isArray(notes) || notes.length > MAX_NOTES || !notes.every((note) => typeof note === 'string' && note.length <= 2_000))
    return 'notes'
  if (engine !== undefined && engine !== 'isolated-vm') return 'engine'
  return value as unknown as StoredDecision
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
