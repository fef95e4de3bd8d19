/**
 * Before select loads core and its candidates, it starts the engine child its usual choice will
 * want (@cordon/backend-subprocess's early start): that child's Node starts while this process
 * is still loading. Only for options under which the subprocess backend with its defaults is
 * what select would take; the early start itself does nothing unless the launch-plan cache
 * remembers isolated-vm working (and then select takes the subprocess backend without a probe).
 * A child nobody adopts is ended by the early start, so a wrong guess costs a process start.
 */
import type { CreateSandboxOptions } from './select-options.js'

const EARLY_START = '@cordon/backend-subprocess/early-start'
/** Options that change what select takes, or how the subprocess backend starts its children. */
const CHOICE_OPTIONS = ['backend', 'prefer', 'require', 'fresh', 'env', 'candidates'] as const

/**
 * Starts, now, the engine child `createSandbox(options)` will use first, when `options` and the
 * environment leave the choice to select (which `createSandbox()` calls itself): for a program
 * that can start it before it loads the rest of itself, as the `cordon` command does. Never throws.
 */
export async function startEngineEarly(options?: CreateSandboxOptions): Promise<void> {
  try {
    if (!defaultChoice(options) || process.versions.bun !== undefined || 'Deno' in globalThis) return
    const module = (await import(/* webpackIgnore: true */ /* @vite-ignore */ EARLY_START)) as { startEngineChildEarly?: () => boolean }
    module.startEngineChildEarly?.()
  } catch {
    // Not installed, or an older one without the early start: the backend starts its child as always.
  }
}

function defaultChoice(options: CreateSandboxOptions | undefined): boolean {
  if (options === undefined) return envLeavesChoice()
  if (typeof options !== 'object' || options === null) return false
  if (CHOICE_OPTIONS.some((name) => options[name] !== undefined)) return false
  if (options.exclude !== undefined && (!Array.isArray(options.exclude) || options.exclude.some(isSubprocess))) return false
  if (options.backendOptions?.subprocess !== undefined) return false
  return envLeavesChoice()
}

/** CORDON_BACKEND and CORDON_DISABLE (check-select-options.ts) leave the subprocess backend first. */
function envLeavesChoice(): boolean {
  const backend = process.env.CORDON_BACKEND ?? ''
  const disabled = (process.env.CORDON_DISABLE ?? '').split(',')
  return (backend.trim() === '' || isSubprocess(backend)) && !disabled.some(isSubprocess)
}

/** The subprocess backend's name or module, as select reads a name (check-select-options.ts). */
function isSubprocess(name: unknown): boolean {
  const wanted = typeof name === 'string' ? name.trim().toLowerCase() : ''
  return wanted === 'subprocess' || wanted === '@cordon/backend-subprocess'
}
