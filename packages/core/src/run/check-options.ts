import { SandboxError } from '../errors.js'
import { LIMIT_NAMES, checkLimit, describeOptionValue, type Limits } from '../limits.js'
import type { RunOptions } from '../options.js'
import { RESERVED_GLOBAL_NAMES, isPlainIdentifier } from '../reserved-names.js'
import { resolveFetchPolicy } from '../fetch/fetch-options.js'
import { checkModules } from '../modules/module-options.js'
import { ADMISSION_OPTION_NAMES } from '../admission/admission-options.js'
import { resolveTraceOptions } from '../trace/trace-options.js'
import { resolveInspectorPlan } from '../inspector/inspector-options.js'

const KNOWN_KEYS = new Set<string>([
  'tools',
  'globals',
  'signal',
  'onEvent',
  'includeToolValuesInEvents',
  'logArgs',
  'partition',
  'fetch',
  'modules',
  'trace',
  'inspector',
  'cpuProfile',
  ...LIMIT_NAMES,
])
const SUGGESTIONS: Record<string, string> = {
  timeout: 'timeoutMs',
  memory: 'memoryMb',
  memoryLimit: 'memoryMb',
  memoryLimitMb: 'memoryMb',
  maxOutput: 'maxOutputBytes',
  abortSignal: 'signal',
  context: 'globals',
  onEvents: 'onEvent',
  onLog: 'onEvent',
  onProgress: 'onEvent',
  imports: 'modules',
  importMap: 'modules',
  eventListener: 'onEvent',
  includeToolValues: 'includeToolValuesInEvents',
  logValues: 'logArgs',
  consoleArgs: 'logArgs',
  debug: 'inspector',
  inspect: 'inspector',
  profile: 'cpuProfile',
  cpuProf: 'cpuProfile',
}

function invalid(message: string): never {
  throw new SandboxError('INVALID_OPTIONS', message)
}

/** Checks run options (or sandbox defaults) and returns the limits they set. */
export function checkOptions(options: unknown, source: string, allowSignal: boolean): Partial<Limits> {
  if (options === undefined) return {}
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    invalid(`${source} must be an object, got ${describeOptionValue(options)}`)
  }
  const record = options as Record<string, unknown>
  const limits: Partial<Limits> = {}
  for (const key of Object.keys(record)) {
    if (!KNOWN_KEYS.has(key) || (key === 'signal' && !allowSignal)) {
      const hint = SUGGESTIONS[key]
        ? ` (did you mean ${SUGGESTIONS[key]}?)`
        : (ADMISSION_OPTION_NAMES as readonly string[]).includes(key)
          ? ` (it counts the sandbox's runs: createSandbox(backend, { ${key} }))`
          : ''
      invalid(`${source}: unknown option "${key}"${hint}`)
    }
  }
  for (const name of LIMIT_NAMES) {
    if (record[name] !== undefined) limits[name] = checkLimit(name, record[name], source)
  }
  const signal = record.signal
  if (signal !== undefined && !isAbortSignal(signal)) invalid(`${source}: signal must be an AbortSignal`)
  if (record.onEvent !== undefined && typeof record.onEvent !== 'function') {
    invalid(`${source}: onEvent must be a function (event) => void, got ${describeOptionValue(record.onEvent)}`)
  }
  const values = record.includeToolValuesInEvents
  if (values !== undefined && typeof values !== 'boolean') {
    invalid(`${source}: includeToolValuesInEvents must be a boolean, got ${describeOptionValue(values)}`)
  }
  if (record.logArgs !== undefined && typeof record.logArgs !== 'boolean') {
    invalid(`${source}: logArgs must be a boolean, got ${describeOptionValue(record.logArgs)}`)
  }
  const partition = record.partition
  if (partition !== undefined && (typeof partition !== 'string' || partition === '' || partition.length > 200)) {
    invalid(`${source}: partition must be a non-empty string of at most 200 characters, got ${describeOptionValue(partition)}`)
  }
  const globals = record.globals
  if (globals !== undefined && (typeof globals !== 'object' || globals === null || Array.isArray(globals))) {
    invalid(`${source}: globals must be an object of name → value`)
  }
  resolveFetchPolicy(record.fetch, source)
  checkModules(record.modules, source)
  resolveTraceOptions(record.trace, source)
  resolveInspectorPlan(record.inspector as never, record.cpuProfile as never, source)
  return limits
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).aborted === 'boolean' &&
    typeof (value as AbortSignal).addEventListener === 'function'
  )
}

/** Global names must be identifiers that shadow neither a built-in nor a tool namespace. */
export function checkGlobalNames(globals: Record<string, unknown>, toolRoots: ReadonlySet<string>): void {
  for (const name of Object.keys(globals)) {
    if (!isPlainIdentifier(name)) invalid(`globals: "${name}" is not a plain identifier, so the guest could not use it`)
    if (RESERVED_GLOBAL_NAMES.has(name)) invalid(`globals: "${name}" would replace the guest's built-in of that name`)
    if (toolRoots.has(name)) invalid(`globals: "${name}" is already a tool namespace`)
  }
}

export function mergeRunOptions(defaults: RunOptions, options: RunOptions): RunOptions {
  return {
    ...defaults,
    ...options,
    tools: options.tools ?? defaults.tools,
    globals: options.globals ?? defaults.globals,
    onEvent: options.onEvent ?? defaults.onEvent,
    includeToolValuesInEvents: options.includeToolValuesInEvents ?? defaults.includeToolValuesInEvents,
    logArgs: options.logArgs ?? defaults.logArgs,
    fetch: options.fetch ?? defaults.fetch,
    modules: options.modules ?? defaults.modules,
  }
}
