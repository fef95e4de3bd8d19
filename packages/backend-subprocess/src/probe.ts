/**
 * Decides, once, how children are launched here — by launching real children, never by
 * reading version numbers. A first child finds the permission flag this Node takes
 * (`--permission`, or `--experimental-permission` on Node 20) and reports what it can do;
 * then the Linux wrappers are tried together, and if that fails one by one, keeping those
 * that work. The result explains every refusal (see `Diagnostics`).
 */
import { chooseNodeBinary, findChildEntry, findExecutable, hostUid } from './executables.js'
import { GuestChild } from './guest-child.js'
import { describeLayers, type LaunchPlan, type Layers, type PermissionFlag } from './launch-plan.js'
import type { InitMessage, ProbeReport } from './messages.js'
import type { ResolvedOptions } from './options.js'
import { readStatusKb } from './proc-stats.js'

export interface Diagnostics {
  available: boolean
  /** Why the backend cannot run here (when `available` is false). */
  reason?: string
  nodePath?: string
  nodeVersion?: string
  permissionFlag?: string
  /** Linux wrappers in use. */
  layers: string[]
  /** What keeps an escaped guest off the network. */
  network: 'namespace' | 'permission-model' | 'none' | 'unknown'
  /** Wrappers that were tried and dropped, and why. */
  notes: string[]
  /** The last failure of a child started in the background, if any. */
  lastStartError?: string
  /** What runs the guest in the children (see the `engine` option); with `'auto'`, what it chose. */
  engine?: 'isolated-vm' | 'quickjs' | 'node-vm'
  /**
   * Where this decision comes from (when available): `'probed'` by this process, or read from the
   * launch-plan cache (`'cache'`, see the `launchPlanCache` option); `file` is the cache entry read
   * or written, `probedAt` when the cached decision was probed; `engine`, the engine `'auto'` found
   * working with this plan before, started since without a check run.
   */
  launchPlan?: { source: 'probed' | 'cache'; file?: string; probedAt?: string; engine?: 'isolated-vm' }
}

export type LaunchResult =
  { ok: true; plan: LaunchPlan; diagnostics: Diagnostics } | { ok: false; reason: string; diagnostics: Diagnostics }

const PROBE_MEMORY_MB = 128
const PROBE_REPORT_TIMEOUT_MS = 10_000
const DENIED = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'EACCES', 'EPERM', 'EAFNOSUPPORT', 'ENETDOWN'])

interface Probed {
  report: ProbeReport
  vmDataKb: number | undefined
}

export async function probeLaunch(settings: ResolvedOptions, init: InitMessage): Promise<LaunchResult> {
  const diagnostics: Diagnostics = { available: false, layers: [], network: 'unknown', notes: [] }
  const unavailable = (reason: string): LaunchResult => {
    diagnostics.reason = reason
    return { ok: false, reason, diagnostics }
  }
  const node = chooseNodeBinary(settings.nodePath)
  if ('reason' in node) return unavailable(node.reason)
  const entry = findChildEntry()
  if ('reason' in entry) return unavailable(entry.reason)
  diagnostics.nodePath = node.path

  const base = { nodePath: node.path, entryPath: entry.path, layers: {} }
  const candidates = process.platform === 'linux' ? layerCandidates(settings, diagnostics.notes) : {}
  // User namespaces are only the fallback for hosts that may not create namespaces themselves.
  const { userNamespaces: _fallback, ...preferred } = candidates
  const all = Object.assign({}, ...Object.values(preferred)) as Layers

  // The common case costs one round of parallel starts: every wrapper at once, with both flags.
  let found = await firstWorking(
    FLAGS.map((permissionFlag) => ({ ...base, permissionFlag, layers: all })),
    init,
  )
  if ('error' in found) {
    const bare = await firstWorking(
      FLAGS.map((permissionFlag) => ({ ...base, permissionFlag })),
      init,
    )
    if ('error' in bare) {
      const hint = /bad option/i.test(bare.error) ? ' (the subprocess backend needs Node.js >= 20, for its permission model)' : ''
      return unavailable(`${node.path} cannot run a sandbox child: ${bare.error}${hint}`)
    }
    found = Object.keys(candidates).length === 0 ? bare : await layerByLayer(bare.plan, candidates, init, diagnostics.notes)
  }
  const { plan, probed } = found
  const { report } = probed
  diagnostics.nodeVersion = report.node
  diagnostics.permissionFlag = plan.permissionFlag
  if (report.foreignRuntime !== null) {
    return unavailable(
      `${node.path} is ${report.foreignRuntime}, not Node.js; pass createSubprocessBackend({ nodePath }) pointing at Node.js >= 20`,
    )
  }
  if (!report.permissionModel) {
    return unavailable(
      `${node.path} (Node ${report.node}) did not enforce the permission model; the subprocess backend needs Node.js >= 20`,
    )
  }
  if (plan.layers.dataLimit && probed.vmDataKb !== undefined) {
    plan.layers.dataLimit = { ...plan.layers.dataLimit, baselineKb: probed.vmDataKb }
  } else if (plan.layers.dataLimit) {
    diagnostics.notes.push(`cannot read /proc: the data ceiling assumes a ${PROBE_BASELINE_KB >> 10} MB idle child`)
  }
  if (process.platform === 'linux' && probed.vmDataKb === undefined) {
    diagnostics.notes.push('cannot read /proc: no resident-memory watchdog (off-heap memory is checked by the child between jobs only)')
  }
  diagnostics.layers = describeLayers(plan.layers)
  const network = report.network
  diagnostics.network =
    network === 'ERR_ACCESS_DENIED' ? 'permission-model' : DENIED.has(network) && plan.layers.namespaces?.network ? 'namespace' : 'none'
  if (settings.networkIsolation === 'required' && diagnostics.network === 'none') {
    const notes = diagnostics.notes.length > 0 ? ` (${diagnostics.notes.join('; ')})` : ''
    return unavailable(
      `networkIsolation is 'required' but a child can still reach the network (a loopback connect gave ${network}); it needs unshare with network namespaces (root or unprivileged user namespaces) or a Node.js whose permission model denies the network${notes}`,
    )
  }
  diagnostics.available = true
  return { ok: true, plan, diagnostics }
}

const FLAGS: readonly PermissionFlag[] = ['--permission', '--experimental-permission']
/** The data ceiling while probing, before the idle child's real size is known. */
const PROBE_BASELINE_KB = 1024 * 1024

type Found = { plan: LaunchPlan; probed: Probed }

/** Probes the plans at once; the first (in order) that works wins. */
async function firstWorking(plans: LaunchPlan[], init: InitMessage): Promise<Found | { error: string }> {
  const results = await Promise.all(plans.map((plan) => tryProbe(plan, init)))
  for (let i = 0; i < plans.length; i++) {
    const result = results[i]!
    if (!('error' in result)) return { plan: plans[i]!, probed: result }
  }
  const errors = results.map((result) => ('error' in result ? result.error : ''))
  // A flag this Node does not know says "bad option"; the other error is the interesting one.
  return { error: errors.find((error) => !/bad option/i.test(error)) ?? errors[0] ?? 'no plan to probe' }
}

function layerCandidates(settings: ResolvedOptions, notes: string[]): Record<string, Layers> {
  const prlimit = findExecutable('prlimit')
  const setpriv = findExecutable('setpriv')
  const unshare = findExecutable('unshare')
  const network = settings.networkIsolation !== 'off'
  const candidates: Record<string, Layers> = {}
  if (prlimit) candidates.dataLimit = { dataLimit: { prlimit, baselineKb: PROBE_BASELINE_KB } }
  if (setpriv) candidates.parentDeath = { parentDeath: { setpriv } }
  if (unshare) {
    candidates.namespaces = { namespaces: { unshare, userNamespace: false, network } }
    candidates.userNamespaces = { namespaces: { unshare, userNamespace: true, network } }
  }
  if (setpriv && hostUid() === 0) candidates.dropUser = { dropUser: { setpriv } }
  for (const [name, found] of [
    ['prlimit', prlimit],
    ['setpriv', setpriv],
    ['unshare', unshare],
  ] as const) {
    if (!found) notes.push(`${name} not found`)
  }
  return candidates
}

/** When the wrappers fail together: each alone, then the ones that work, else none. */
async function layerByLayer(plan: LaunchPlan, candidates: Record<string, Layers>, init: InitMessage, notes: string[]): Promise<Found> {
  const names = Object.keys(candidates)
  const alone = await Promise.all(names.map((name) => tryProbe({ ...plan, layers: candidates[name]! }, init)))
  const works = new Set<string>()
  names.forEach((name, i) => {
    const result = alone[i]!
    if ('error' in result) notes.push(`${name} dropped: ${result.error}`)
    else works.add(name)
  })
  const layers: Layers = {}
  if (works.has('dataLimit')) Object.assign(layers, candidates.dataLimit)
  if (works.has('parentDeath')) Object.assign(layers, candidates.parentDeath)
  if (works.has('namespaces')) Object.assign(layers, candidates.namespaces)
  else if (works.has('userNamespaces')) Object.assign(layers, candidates.userNamespaces)
  // Inside a user namespace only root is mapped, so switching to nobody cannot work there.
  if (works.has('dropUser') && !layers.namespaces?.userNamespace) Object.assign(layers, candidates.dropUser)
  const combined = await tryProbe({ ...plan, layers }, init)
  if (!('error' in combined)) return { plan: { ...plan, layers }, probed: combined }
  notes.push(`the working wrappers failed together (${combined.error}); running without wrappers`)
  const bare = await tryProbe({ ...plan, layers: {} }, init)
  if ('error' in bare) throw new Error(bare.error)
  return { plan: { ...plan, layers: {} }, probed: bare }
}

/** Starts one child with `plan`, asks it for a report, and kills it. */
async function tryProbe(plan: LaunchPlan, init: InitMessage): Promise<Probed | { error: string }> {
  let child: GuestChild
  try {
    child = new GuestChild(plan, PROBE_MEMORY_MB, init)
  } catch (error) {
    return { error: (error as Error).message }
  }
  try {
    await child.ready
    const vmDataKb = child.nodePid === undefined ? undefined : readStatusKb(child.nodePid, 'VmData')
    const report = await new Promise<ProbeReport>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the probe child did not report in time')), PROBE_REPORT_TIMEOUT_MS)
      const settle = () => clearTimeout(timer)
      child.attach(
        {
          message: (message) => {
            settle()
            if (message.kind === 'probe') resolve(message.report)
            else reject(new Error(`unexpected ${message.kind} message from a probe child`))
          },
          violation: (reason) => {
            settle()
            reject(new Error(reason))
          },
          exit: () => {
            settle()
            reject(new Error(`the probe child died: ${child.stderrTail().trim().slice(-300)}`))
          },
        },
        64 * 1024,
      )
      child.send(['probe'])
    })
    return { report, vmDataKb }
  } catch (error) {
    return { error: (error as Error).message }
  } finally {
    child.kill()
    await child.closed
  }
}
