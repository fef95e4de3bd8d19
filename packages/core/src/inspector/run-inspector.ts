/**
 * One run's inspector: the debugger's socket and the CPU profile, over the engine's inspector
 * sessions the backend opens (InspectorHooks). Each debugger connection gets a session of its own;
 * the profile has another. Core adds to what a debugger asks for only this: cordon's own runtime
 * scripts are ignore-listed (stepping and pauses skip them), and with `waitForDebugger` the program
 * pauses at its first statement once the debugger says go.
 */
import {
  RUNTIME_SCRIPT_PREFIX,
  type EngineInspector,
  type EngineInspectorSession,
  type InspectorHooks,
} from '../backend/v1/inspector-hooks.js'
import type { CpuProfile } from './cpu-profile.js'
import type { InspectorPlan } from './inspector-options.js'
import type { InspectorServer } from './inspector-server.js'

/** Scripts a backend compiles for itself are named so; a debugger steps over them. */
const IGNORED_SCRIPTS = [`^${RUNTIME_SCRIPT_PREFIX}`]
/** Ids of the commands core sends itself, above any a client uses. */
const OWN_IDS_FROM = 1_000_000_000
/** Bound on waiting for the engine to hand over the profile once the program has finished. */
const PROFILE_STOP_WAIT_MS = 5_000

interface CdpMessage {
  id?: number
  method?: string
  params?: Record<string, unknown>
  result?: Record<string, unknown>
  error?: { message?: string }
}

/** A session with the engine that core can also send its own commands on. */
class EngineLink {
  private nextId = OWN_IDS_FROM
  private readonly pending = new Map<number, (message: CdpMessage) => void>()
  readonly session: EngineInspectorSession
  /** The program's script, once the engine reported it (to a session with the Debugger on). */
  programScriptId: string | undefined
  /** A breakpoint of core's own that goes once it is hit (the pause before the first statement). */
  oneShotBreakpoint: string | undefined

  constructor(
    engine: EngineInspector,
    programFile: string,
    private readonly forward: (message: string) => void,
  ) {
    this.session = engine.connect((text) => {
      const message = parse(text)
      const waiter = message?.id === undefined ? undefined : this.pending.get(message.id)
      if (waiter !== undefined) {
        this.pending.delete(message!.id!)
        return waiter(message!)
      }
      if (message?.method === 'Debugger.scriptParsed' && message.params?.url === programFile) {
        this.programScriptId = String(message.params.scriptId)
      }
      const hit = message?.method === 'Debugger.paused' ? message.params?.hitBreakpoints : undefined
      if (this.oneShotBreakpoint !== undefined && Array.isArray(hit) && hit.includes(this.oneShotBreakpoint)) {
        void this.command('Debugger.removeBreakpoint', { breakpointId: this.oneShotBreakpoint })
        this.oneShotBreakpoint = undefined
      }
      forward(text)
    })
  }

  /** Answers the debugger's command `id` with an empty result, in core's name. */
  reply(id: number): void {
    this.forward(JSON.stringify({ id, result: {} }))
  }

  /** Sends a command of core's own; its answer never reaches a client. */
  command(method: string, params: Record<string, unknown> = {}): Promise<CdpMessage> {
    const id = this.nextId++
    return new Promise((resolve) => {
      this.pending.set(id, resolve)
      this.session.dispatch(JSON.stringify({ id, method, params }))
    })
  }

  /**
   * Pauses the program at its first statement: a breakpoint at the first place V8 can break in the
   * program's own function (not a nested one), removed once hit. `bodyColumn`: where that function's
   * body begins on the script's first line.
   */
  async breakAtFirstStatement(bodyColumn: number): Promise<void> {
    // The engine answers in order: once this answer is here, so is the program's scriptParsed
    // (the program was compiled before, and reported to a session with the Debugger on).
    await this.command('Runtime.getIsolateId')
    if (this.programScriptId === undefined) return
    const start = { scriptId: this.programScriptId, lineNumber: 0, columnNumber: bodyColumn }
    const possible = await this.command('Debugger.getPossibleBreakpoints', { start, restrictToFunction: true })
    const first = (possible.result?.locations as unknown[] | undefined)?.[0]
    if (first === undefined) return
    const set = await this.command('Debugger.setBreakpoint', { location: first })
    const id = set.result?.breakpointId
    if (typeof id === 'string') this.oneShotBreakpoint = id
  }

  end(): void {
    for (const resolve of this.pending.values()) resolve({ error: { message: 'the session ended' } })
    this.pending.clear()
    this.session.disconnect()
  }
}

export class RunInspector implements InspectorHooks {
  private server: InspectorServer | undefined
  private engine: EngineInspector | undefined
  private readonly links = new Set<EngineLink>()
  /** Debuggers connected before the engine was attached. */
  private readonly waiting = new Set<(engine: EngineInspector) => void>()
  private profileLink: EngineLink | undefined
  private profileStarted: Promise<unknown> | undefined
  private profile: CpuProfile | undefined
  private letGo!: () => void
  private readonly mayStart: Promise<void>
  /** The link of the debugger that said go, paused at the first statement once it is. */
  private goSaidBy: EngineLink | undefined
  private ended = false

  /**
   * `programFile`: the name the program's script is compiled under; `bodyColumn`: where its main
   * function's body starts on the script's first line.
   */
  constructor(
    private readonly plan: InspectorPlan,
    private readonly signal: AbortSignal,
    private readonly programFile: string,
    private readonly bodyColumn: number,
  ) {
    this.mayStart = new Promise((resolve) => (this.letGo = resolve))
    if (plan.debugger?.waitForDebugger !== true) this.letGo()
    signal.addEventListener('abort', () => this.letGo(), { once: true })
  }

  /** Starts listening for a debugger (when asked for) and says where. Throws INVALID_OPTIONS when the port is taken. */
  async listen(): Promise<void> {
    const options = this.plan.debugger
    if (options === undefined) return
    // Loaded here, not at the top: it needs Node's http, and core's entry also loads in browsers.
    const { startInspectorServer } = await import('./inspector-server.js')
    this.server = await startInspectorServer(options.host, options.port, (client, onMessage) => {
      if (this.ended) {
        client.close('the run has ended')
        return () => undefined
      }
      // A debugger may connect before the engine exists: its messages wait for it.
      let link: EngineLink | undefined
      const waiting: string[] = []
      const open = (engine: EngineInspector) => {
        link = new EngineLink(engine, this.programFile, (message) => client.send(message))
        this.links.add(link)
        for (const text of waiting.splice(0)) this.fromClient(link, text)
      }
      if (this.engine !== undefined) open(this.engine)
      else this.waiting.add(open)
      onMessage((text) => (link === undefined ? waiting.push(text) : this.fromClient(link, text)))
      return () => {
        this.waiting.delete(open)
        if (link === undefined) return
        this.links.delete(link)
        link.end()
      }
    })
    const { endpoint } = this.server
    if (options.onListening !== undefined) {
      try {
        options.onListening(endpoint)
      } catch {
        // The host's callback: what it throws changes nothing about the run (as onEvent's).
      }
    } else {
      process.stderr.write(
        `Debugger listening on ${endpoint.webSocketUrl}\nOpen ${endpoint.devtoolsUrl} in Chrome, or add ${endpoint.host}:${endpoint.port} under chrome://inspect\n`,
      )
    }
  }

  attach(engine: EngineInspector): void {
    this.engine = engine
    for (const open of this.waiting) open(engine)
    this.waiting.clear()
    if (this.plan.profile !== undefined) {
      const link = new EngineLink(engine, this.programFile, () => undefined)
      this.profileLink = link
      const interval = this.plan.profile.samplingIntervalUs
      this.profileStarted = link
        .command('Profiler.enable')
        .then(() => link.command('Profiler.setSamplingInterval', { interval }))
        .then(() => link.command('Profiler.start'))
    }
  }

  async beforeStart(): Promise<void> {
    await this.mayStart
    if (this.profileStarted !== undefined) await Promise.race([this.profileStarted, this.stopped()])
    if (this.goSaidBy !== undefined && !this.signal.aborted)
      await Promise.race([this.goSaidBy.breakAtFirstStatement(this.bodyColumn), this.stopped()])
  }

  async beforeEnd(): Promise<void> {
    const link = this.profileLink
    if (link === undefined || this.profile !== undefined) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), PROFILE_STOP_WAIT_MS)))
    const answer = await Promise.race([link.command('Profiler.stop'), late])
    clearTimeout(timer)
    const profile = answer?.result?.profile
    if (isProfile(profile)) this.profile = profile
  }

  /** Ends every session and the socket; returns the profile, if one was taken. */
  close(reason: string): CpuProfile | undefined {
    this.ended = true
    this.letGo()
    this.server?.close(reason)
    for (const link of this.links) link.end()
    this.links.clear()
    this.profileLink?.end()
    return this.profile
  }

  private fromClient(link: EngineLink, text: string): void {
    const message = parse(text)
    if (message === undefined || typeof message.method !== 'string') return link.session.dispatch(text)
    if (message.method === 'Debugger.setBlackboxPatterns') {
      // The debugger's own list (e.g. DevTools' ignore list) keeps cordon's scripts on it.
      const patterns = Array.isArray(message.params?.patterns) ? (message.params.patterns as unknown[]) : []
      return link.session.dispatch(
        JSON.stringify({ ...message, params: { ...message.params, patterns: [...patterns, ...IGNORED_SCRIPTS] } }),
      )
    }
    if (message.method === 'Runtime.runIfWaitingForDebugger') {
      // Answered here: V8 does nothing with it for an embedder like isolated-vm, and an isolate
      // waiting for its debugger did not always take the message in time (the debugger then
      // waited for the answer until the run's deadline).
      if (typeof message.id === 'number') link.reply(message.id)
      if (this.plan.debugger?.waitForDebugger === true && this.goSaidBy === undefined) {
        this.goSaidBy = link
        this.letGo()
      }
      return
    }
    link.session.dispatch(text)
    if (message.method === 'Debugger.enable') void link.command('Debugger.setBlackboxPatterns', { patterns: IGNORED_SCRIPTS })
  }

  private stopped(): Promise<void> {
    return new Promise((resolve) => {
      if (this.signal.aborted) resolve()
      else this.signal.addEventListener('abort', () => resolve(), { once: true })
    })
  }
}

function parse(text: string): CdpMessage | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null ? value : undefined
  } catch {
    return undefined
  }
}

function isProfile(value: unknown): value is CpuProfile {
  return typeof value === 'object' && value !== null && Array.isArray((value as CpuProfile).nodes)
}
