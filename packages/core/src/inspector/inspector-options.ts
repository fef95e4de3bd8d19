/**
 * The `inspector` and `cpuProfile` run options: their public shape and the check that turns them
 * into what a run does. A mistake in them is the host's, so it throws INVALID_OPTIONS.
 */
import { SandboxError } from '../errors.js'
import { describeOptionValue } from '../limits.js'

/** Where a debugger connects to a run (see `InspectorOptions.onListening`). */
export interface InspectorEndpoint {
  /** `ws://127.0.0.1:PORT/UUID`: what a CDP client (Puppeteer, chrome-remote-interface, VS Code) connects to. */
  webSocketUrl: string
  /** Paste into Chrome's address bar to open DevTools on the run. */
  devtoolsUrl: string
  host: string
  port: number
}

export interface InspectorOptions {
  /**
   * The loopback address to listen on: `'127.0.0.1'` (default), `'::1'` or `'localhost'`. Nothing
   * else is accepted: whoever reaches the port and path controls the guest.
   */
  host?: string
  /** The port; 0 (default) takes a free one. Chrome's `chrome://inspect` looks at 9229 by default. */
  port?: number
  /**
   * Pause before the program's first statement until a debugger connects and lets it go (as
   * `node --inspect-brk`). The wait counts against the run's deadline unless `suspendDeadline`.
   */
  waitForDebugger?: boolean
  /**
   * The run's `timeoutMs` does not apply: a person stepping through the program takes minutes.
   * An abort (`signal`) still ends it. Off by default: a paused debugger does not keep a run
   * alive past its deadline.
   */
  suspendDeadline?: boolean
  /**
   * Told where to connect as soon as the debugger's socket listens, before the program starts.
   * Default: one line on stderr, as Node's `--inspect` prints. What it throws is ignored.
   */
  onListening?: (endpoint: InspectorEndpoint) => void
}

export interface CpuProfileOptions {
  /** Microseconds between samples (an integer from 10 to 1,000,000). Default 100, as Node's `--cpu-prof-interval`. */
  samplingIntervalUs?: number
}

/** What a run's inspector does, checked. */
export interface InspectorPlan {
  debugger?: Required<Omit<InspectorOptions, 'onListening'>> & Pick<InspectorOptions, 'onListening'>
  profile?: Required<CpuProfileOptions>
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost'])
const MAX_PORT = 65535

/** The run's inspector plan, or undefined when it asks for neither option. Throws INVALID_OPTIONS. */
export function resolveInspectorPlan(
  inspector: boolean | InspectorOptions | undefined,
  cpuProfile: boolean | CpuProfileOptions | undefined,
  source: string,
): InspectorPlan | undefined {
  const plan: InspectorPlan = {}
  const fail = (message: string) => new SandboxError('INVALID_OPTIONS', `${source}: ${message}`)
  if (inspector !== undefined && inspector !== false) {
    if (inspector !== true && (typeof inspector !== 'object' || inspector === null || Array.isArray(inspector))) {
      throw fail(`inspector must be true, false or an object, got ${describeOptionValue(inspector)}`)
    }
    const options: InspectorOptions = inspector === true ? {} : inspector
    const host = options.host ?? '127.0.0.1'
    if (typeof host !== 'string' || !LOOPBACK.has(host)) {
      throw fail(`inspector.host must be a loopback address ('127.0.0.1', '::1' or 'localhost'), got ${describeOptionValue(host)}`)
    }
    const port = options.port ?? 0
    if (!Number.isInteger(port) || port < 0 || port > MAX_PORT) {
      throw fail(`inspector.port must be an integer from 0 to ${MAX_PORT}, got ${describeOptionValue(port)}`)
    }
    for (const flag of ['waitForDebugger', 'suspendDeadline'] as const) {
      if (options[flag] !== undefined && typeof options[flag] !== 'boolean') {
        throw fail(`inspector.${flag} must be a boolean, got ${describeOptionValue(options[flag])}`)
      }
    }
    if (options.onListening !== undefined && typeof options.onListening !== 'function') {
      throw fail(`inspector.onListening must be a function, got ${describeOptionValue(options.onListening)}`)
    }
    plan.debugger = {
      host,
      port,
      waitForDebugger: options.waitForDebugger === true,
      suspendDeadline: options.suspendDeadline === true,
      ...(options.onListening === undefined ? {} : { onListening: options.onListening }),
    }
  }
  if (cpuProfile !== undefined && cpuProfile !== false) {
    if (cpuProfile !== true && (typeof cpuProfile !== 'object' || cpuProfile === null || Array.isArray(cpuProfile))) {
      throw fail(`cpuProfile must be true, false or an object, got ${describeOptionValue(cpuProfile)}`)
    }
    const interval = (cpuProfile === true ? undefined : cpuProfile.samplingIntervalUs) ?? 100
    if (!Number.isInteger(interval) || interval < 10 || interval > 1_000_000) {
      throw fail(`cpuProfile.samplingIntervalUs must be an integer from 10 to 1000000, got ${describeOptionValue(interval)}`)
    }
    plan.profile = { samplingIntervalUs: interval }
  }
  return plan.debugger === undefined && plan.profile === undefined ? undefined : plan
}
