import type { FetchOptions, Limits, RunEventListener, RunResult, Sandbox, Session, SessionEnd, ToolSet } from '@cordon/core'

/**
 * Where the REPL's entries run. By default on one cordon session, so that what an entry
 * declares is there for the next; with `--fresh`, each entry in a fresh sandbox, as `cordon run`
 * would run it. A run that ends the session (a stop from outside, out of memory, a crash) gets
 * a new session at once: the REPL is never left with a dead one.
 */
export interface ReplRunner {
  readonly fresh: boolean
  run(code: string, options: { signal: AbortSignal; onEvent?: RunEventListener | undefined }): Promise<EntryOutcome>
  /** A new session: nothing earlier entries defined is left. */
  reset(): Promise<void>
  /**
   * Property names of the guest value at `path` (`[]`: the global object), for Tab: asked of the
   * guest once after each entry; while an entry runs, only what is already known. Never rejects.
   */
  propertyNames(path: readonly string[]): Promise<string[]>
  dispose(): Promise<void>
}

export interface EntryOutcome {
  result: RunResult
  /** The run ended the session, and why; a new one has been opened. */
  sessionEnded?: SessionEnd
}

export interface RunnerOptions {
  sandbox: Sandbox
  fresh: boolean
  limits: Partial<Limits>
  tools: ToolSet | undefined
  globals: Record<string, unknown> | undefined
  fetch: FetchOptions | undefined
  /** Said when a completion run, not an entry, ended the session. */
  notify(text: string): void
}

/** A completion run is a few property reads: this is far more than it needs. */
const COMPLETION_TIMEOUT_MS = 5_000

export async function createReplRunner(options: RunnerOptions): Promise<ReplRunner> {
  const { sandbox, limits, tools, globals } = options
  const shared = { ...(tools !== undefined && { tools }), ...(globals !== undefined && { globals }) }
  const open = (): Promise<Session> => sandbox.createSession({ ...limits, ...shared })
  let session = options.fresh ? undefined : await open()
  let running = 0
  const names = new Map<string, Promise<string[]>>()

  /** Replaces an ended session; resolves how it ended. */
  const renew = async (current: Session): Promise<SessionEnd | undefined> => {
    const ended = current.ended
    if (ended === undefined) return undefined
    await current.dispose()
    session = await open()
    names.clear()
    return ended
  }

  return {
    fresh: options.fresh,
    async run(code, { signal, onEvent }) {
      running++
      try {
        if (session === undefined) {
          const run = { ...limits, ...shared, ...(options.fetch && { fetch: options.fetch }), ...(onEvent && { onEvent }), signal }
          return { result: await sandbox.run(code, run) }
        }
        if (session.ended !== undefined) await renew(session)
        const current = session
        names.clear()
        const result = await current.run(code, { signal, ...(onEvent && { onEvent }) })
        const sessionEnded = await renew(current)
        return sessionEnded === undefined ? { result } : { result, sessionEnded }
      } finally {
        running--
      }
    },
    async reset() {
      if (session === undefined) return
      const old = session
      session = await open()
      names.clear()
      await old.dispose()
    },
    propertyNames(path) {
      const key = path.join('.')
      let known = names.get(key)
      if (known === undefined) {
        // A run now would wait for the entry in progress.
        if (running > 0) return Promise.resolve([])
        known = askGuest(path)
        names.set(key, known)
      }
      return known
    },
    async dispose() {
      await session?.dispose()
    },
  }

  /** Never rejects: Tab offers nothing rather than an error. */
  async function askGuest(path: readonly string[]): Promise<string[]> {
    const code = propertyNamesProgram(path)
    const current = session
    try {
      const result =
        current === undefined
          ? await sandbox.run(code, { ...shared, timeoutMs: COMPLETION_TIMEOUT_MS })
          : await current.run(code, { timeoutMs: COMPLETION_TIMEOUT_MS })
      if (current !== undefined) {
        const ended = await renew(current)
        if (ended !== undefined) options.notify(sessionEndedNotice(ended, 'completion'))
      }
      if (!result.ok || !Array.isArray(result.value)) return []
      return result.value.filter((name): name is string => typeof name === 'string')
    } catch (error) {
      options.notify(`(completion failed: ${error instanceof Error ? error.message : String(error)})`)
      return []
    }
  }
}

/** What the REPL says when a run (an entry's, or Tab's) ended its session. */
export function sessionEndedNotice(ended: SessionEnd, during: 'entry' | 'completion' = 'entry'): string {
  const what = during === 'completion' ? 'while completing, the session ended' : 'the session ended'
  return `(${what}: ${ended.code}; a new session is open, and what earlier entries defined is gone)`
}

/**
 * Guest code listing the property names at `path`, up the prototype chain. The path is walked
 * through property descriptors, so no getter of the guest's runs: the one exception is the
 * accessor through which a session keeps an earlier entry's top-level binding
 * (`get(){return name}`, core's normalize/persist.ts), which only reads that binding. `path` holds
 * identifiers only (the completer checks), and goes in as JSON anyway.
 */
function propertyNamesProgram(path: readonly string[]): string {
  return `(() => {
  let target = globalThis
  for (const key of ${JSON.stringify(path)}) {
    let found
    for (let owner = target; owner !== null && found === undefined; owner = Object.getPrototypeOf(owner))
      found = Object.getOwnPropertyDescriptor(owner, key)
    if (found === undefined) return []
    const kept = target === globalThis && typeof found.get === 'function' && String(found.get) === 'get(){return ' + key + '}'
    const value = kept ? found.get() : found.value
    if (value === null || value === undefined) return []
    target = Object(value)
  }
  const names = new Set()
  for (let owner = target; owner !== null && names.size < 5000; owner = Object.getPrototypeOf(owner))
    for (const name of Object.getOwnPropertyNames(owner)) names.add(name)
  return [...names]
})()`
}
