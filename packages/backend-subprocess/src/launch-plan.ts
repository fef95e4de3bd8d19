/**
 * How children are launched: the Node flags, and on Linux a chain of small util-linux
 * wrappers that each exec the next (so a child is one process, or two with a PID
 * namespace). Each wrapper is optional; the probe keeps only the ones that work here.
 *
 *   prlimit --data        hard ceiling on writable memory (ArrayBuffers included)
 *   setpriv --pdeathsig   the child is SIGKILLed when the host dies
 *   unshare --net --pid   no network; cannot see or signal processes outside its namespace
 *   setpriv --reuid       a root host's children run as nobody
 */
import { dataLimitBytes, nodeMemoryFlags } from './memory-budget.js'

export type PermissionFlag = '--permission' | '--experimental-permission'

export interface Layers {
  /** `prlimit` path and the idle child's data segment, the base of the ceiling. */
  dataLimit?: { prlimit: string; baselineKb: number }
  parentDeath?: { setpriv: string }
  namespaces?: { unshare: string; userNamespace: boolean; network: boolean }
  dropUser?: { setpriv: string }
}

export interface LaunchPlan {
  nodePath: string
  entryPath: string
  permissionFlag: PermissionFlag
  layers: Layers
}

const NOBODY = '65534'

export function nodeArgs(plan: LaunchPlan, memoryMb: number): string[] {
  return [
    plan.permissionFlag,
    `--allow-fs-read=${plan.entryPath}`,
    '--no-addons',
    '--no-warnings',
    // The child's own realm never evaluates strings, so a guest that reaches its Function
    // constructor still cannot compile code there. Guest contexts keep eval (vm default).
    '--disallow-code-generation-from-strings',
    ...nodeMemoryFlags(memoryMb),
    plan.entryPath,
  ]
}

/** The argv that launches one child for `memoryMb` (command first). */
export function launchArgv(plan: LaunchPlan, memoryMb: number): string[] {
  const dataBytes = plan.layers.dataLimit && dataLimitBytes(memoryMb, plan.layers.dataLimit.baselineKb)
  return [...wrapperArgv(plan.layers, dataBytes), plan.nodePath, ...nodeArgs(plan, memoryMb)]
}

/** How an engine child differs from a per-run child: its own entry, what it may read, and its flags. */
export interface EngineChildLaunch {
  entryPath: string
  /** Files and folders the child may read besides its entry: the engine's packages. */
  readable: readonly string[]
  /** Node flags the engine needs (e.g. `--allow-addons`, `--allow-worker`, `--no-node-snapshot`). */
  engineFlags: readonly string[]
  /** The hard ceiling on the whole child's writable memory, its engine instances included. */
  dataBytes: number
}

/** The argv that launches one engine child (command first), inside the same wrappers as a per-run child. */
export function engineLaunchArgv(plan: LaunchPlan, launch: EngineChildLaunch): string[] {
  const dataBytes = plan.layers.dataLimit && plan.layers.dataLimit.baselineKb * 1024 + launch.dataBytes
  return [
    ...wrapperArgv(plan.layers, dataBytes),
    plan.nodePath,
    plan.permissionFlag,
    `--allow-fs-read=${launch.entryPath}`,
    ...launch.readable.map((path) => `--allow-fs-read=${path}`),
    ...launch.engineFlags,
    '--no-warnings',
    // No V8 heap flags: they are process-wide and would override each isolate's own limit.
    launch.entryPath,
  ]
}

/** The Linux wrappers, each exec-ing the next; empty where none work. */
function wrapperArgv(layers: Layers, dataBytes: number | undefined): string[] {
  const { dataLimit, parentDeath, namespaces, dropUser } = layers
  const argv: string[] = []
  if (dataLimit && dataBytes !== undefined) argv.push(dataLimit.prlimit, `--data=${dataBytes}:${dataBytes}`, '--')
  if (parentDeath) argv.push(parentDeath.setpriv, '--pdeathsig', 'SIGKILL', '--')
  if (namespaces) {
    argv.push(namespaces.unshare)
    if (namespaces.userNamespace) argv.push('--user', '--map-root-user')
    if (namespaces.network) argv.push('--net')
    argv.push('--pid', '--fork', '--kill-child', '--')
  }
  // Changing the uid clears the parent-death signal `unshare --kill-child` set, so set it again.
  if (dropUser) argv.push(dropUser.setpriv, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--pdeathsig', 'SIGKILL', '--')
  return argv
}

/** Human-readable names of the layers in use, for diagnostics. */
export function describeLayers(layers: Layers): string[] {
  const out: string[] = []
  if (layers.dataLimit) out.push('prlimit --data (hard memory ceiling)')
  if (layers.parentDeath) out.push('setpriv --pdeathsig (dies with the host)')
  if (layers.namespaces) {
    const kinds = [layers.namespaces.network ? 'network' : undefined, 'PID', layers.namespaces.userNamespace ? 'user' : undefined]
    out.push(`unshare (${kinds.filter(Boolean).join(', ')} namespaces)`)
  }
  if (layers.dropUser) out.push('setpriv --reuid (runs as nobody)')
  return out
}
