import path from 'node:path'
import { SandboxError } from '@cordon/core'
import { OPTION_DEFAULTS, defaultMaxChildren } from './option-defaults.js'
import type { NetworkIsolationMode, ResolvedOptions, SubprocessBackendOptions, SubprocessEngine } from './option-types.js'

export type { NetworkIsolationMode, ResolvedOptions, SubprocessBackendOptions, SubprocessEngine } from './option-types.js'

const MODES: readonly NetworkIsolationMode[] = ['required', 'preferred', 'off']
const ENGINES: readonly SubprocessEngine[] = ['auto', 'isolated-vm', 'quickjs', 'node-vm']

export function resolveOptions(options: SubprocessBackendOptions = {}): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object')
  const d = OPTION_DEFAULTS
  const { nodePath, poolSize = d.poolSize, poolIdleMs = d.poolIdleMs, networkIsolation = d.networkIsolation } = options
  const { memoryCheckMs = d.memoryCheckMs, engine = d.engine, maxChildren = defaultMaxChildren(), runsPerChild = d.runsPerChild } = options
  const { childMemoryMb = d.childMemoryMb, runsPerChildLifetime = d.runsPerChildLifetime } = options
  const { launchPlanCache } = options
  if (nodePath !== undefined && (typeof nodePath !== 'string' || nodePath === '')) throw invalid('nodePath must be a non-empty string')
  checkInteger('poolSize', poolSize, 0, 64)
  checkInteger('poolIdleMs', poolIdleMs, 0, 24 * 60 * 60 * 1000)
  checkInteger('memoryCheckMs', memoryCheckMs, 0, 60_000)
  if (!MODES.includes(networkIsolation)) throw invalid(`networkIsolation must be one of ${MODES.join(', ')}`)
  if (!ENGINES.includes(engine)) throw invalid(`engine must be one of ${ENGINES.join(', ')}`)
  checkInteger('maxChildren', maxChildren, 1, 64)
  checkInteger('runsPerChild', runsPerChild, 1, 64)
  checkInteger('childMemoryMb', childMemoryMb, 16, 64 * 1024)
  checkInteger('runsPerChildLifetime', runsPerChildLifetime, 1, 1_000_000)
  if (
    launchPlanCache !== undefined &&
    launchPlanCache !== false &&
    (typeof launchPlanCache !== 'string' || !path.isAbsolute(launchPlanCache))
  ) {
    throw invalid(
      `launchPlanCache must be an absolute directory path or false, got ${JSON.stringify(launchPlanCache) ?? String(launchPlanCache)}`,
    )
  }
  return Object.freeze({
    nodePath,
    poolSize,
    poolIdleMs,
    networkIsolation,
    memoryCheckMs,
    engine,
    maxChildren,
    runsPerChild,
    childMemoryMb,
    runsPerChildLifetime,
    launchPlanCache,
  })
}

function checkInteger(name: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`)
  }
}

function invalid(message: string): SandboxError {
  return new SandboxError('INVALID_OPTIONS', `createSubprocessBackend: ${message}`)
}
