import { createRequire } from 'node:module'
import type { IvmModule } from './ivm-types.js'
import { currentProcess, nodeMajor, recommendedIsolatedVm, runtimeName, type ProcessFacts } from './runtime-check.js'

/** isolated-vm itself, or a function that loads it (sync or async). */
export type IsolatedVmSource = IvmModule | (() => IvmModule | Promise<IvmModule>)

/**
 * Package names tried in order. The last two are the npm aliases this package lists as
 * optional dependencies (`isolated-vm-6` → isolated-vm@6.2.0, `isolated-vm-5` →
 * isolated-vm@5.0.4); npm and pnpm skip the ones whose `engines` or build fail here.
 */
export const ISOLATED_VM_CANDIDATES: readonly string[] = ['isolated-vm', 'isolated-vm-6', 'isolated-vm-5']

export type EngineLoad = { ok: true; ivm: IvmModule; from: string } | { ok: false; message: string }

/** Loads isolated-vm once, on first use; later calls get the same answer. */
export function createEngineLoader(
  source: IsolatedVmSource | undefined,
  candidates: readonly string[] = ISOLATED_VM_CANDIDATES,
): () => Promise<EngineLoad> {
  let loaded: Promise<EngineLoad> | undefined
  return () => {
    loaded ??= source === undefined ? Promise.resolve(loadCandidates(candidates, currentProcess())) : loadInjected(source)
    return loaded
  }
}

async function loadInjected(source: IsolatedVmSource): Promise<EngineLoad> {
  try {
    const ivm = typeof source === 'function' ? await source() : source
    if (isIvmModule(ivm)) return { ok: true, ivm, from: 'the isolatedVm option' }
    return { ok: false, message: 'the isolatedVm option did not give the isolated-vm module (no Isolate/Callback classes)' }
  } catch (error) {
    return { ok: false, message: `the isolatedVm option failed to load isolated-vm: ${errorMessage(error)}` }
  }
}

/** `require` is synchronous: the candidates are tried in order, right away. */
function loadCandidates(candidates: readonly string[], facts: ProcessFacts): EngineLoad {
  const require = createRequire(import.meta.url)
  const causes: string[] = []
  for (const name of candidates) {
    try {
      const ivm: unknown = require(name)
      if (isIvmModule(ivm)) return { ok: true, ivm, from: name }
      causes.push(`${name}: not the isolated-vm module`)
    } catch (error) {
      causes.push(`${name}: ${describeLoadFailure(name, error)}`)
    }
  }
  return { ok: false, message: `isolated-vm could not be loaded (${causes.join('; ')}). ${installHint(facts)}` }
}

function isIvmModule(value: unknown): value is IvmModule {
  const mod = value as Partial<IvmModule> | null
  return typeof mod === 'object' && mod !== null && typeof mod.Isolate === 'function' && typeof mod.Callback === 'function'
}

/** One line on why `require(name)` failed, from the failures seen in practice. */
export function describeLoadFailure(name: string, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  const message = errorMessage(error)
  if ((code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && message.includes(`'${name}'`)) return 'not installed'
  const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*NODE_MODULE_VERSION (\d+)/.exec(message)
  if (abi) return `built for another Node version (module version ${abi[1]}, this runtime needs ${abi[2]})`
  if (message.startsWith('No native build was found')) return 'no prebuilt binary for this runtime and it was not built from source'
  if (message.includes('undefined symbol')) return `the native module does not fit this runtime (${firstLine(message)})`
  return firstLine(message)
}

/** What to install or change, for the runtime this process is. */
export function installHint(facts: ProcessFacts): string {
  const runtime = runtimeName(facts)
  if (runtime !== 'node') {
    return `Fix: isolated-vm runs on Node.js only, not on ${runtime === 'bun' ? 'Bun' : 'Deno'}; use @cordon/backend-quickjs there.`
  }
  const major = nodeMajor(facts)
  const version = recommendedIsolatedVm(major)
  return (
    `Fix: on Node ${major} install isolated-vm@${version} (\`npm install isolated-vm@${version}\`) or reinstall ` +
    '@cordon/backend-ivm so its optional dependencies are built for this Node version' +
    (version === '5.0.4' ? ' (5.0.4 compiles from source: it needs python3, make and a C++ compiler)' : '') +
    '; with pnpm, allow its build script: "pnpm": { "onlyBuiltDependencies": ["isolated-vm"] }.'
  )
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? text
  return line.length > 300 ? `${line.slice(0, 300)}…` : line
}
