/**
 * `engine: 'auto' | 'isolated-vm' | 'quickjs'`: the subprocess backend whose children host
 * engines. `'auto'` decides on first use, by starting a child of each engine in turn and running
 * a tiny program in it, and falls back to a fresh `node:vm` child per run when neither works.
 */
import { watchStop, type ExecuteOutcome, type ExecuteRequest, type SandboxBackend } from '@cordon/core/backend'
import type { EngineName } from '../engine-child/engine-init.js'
import type { ResolvedOptions } from '../options.js'
import type { Diagnostics, LaunchResult } from '../probe.js'
import type { Launcher } from '../shared-probe.js'
import { createEngineHost, type ChildStartWatch, type EngineHost } from './engine-backend.js'

export interface EngineChoiceBackend extends SandboxBackend {
  diagnose(): Promise<Diagnostics>
  warm(memoryMb?: number): Promise<void>
}

/** Engines that could not load in a child here, by launch settings: later backends skip them. */
const failedEngines = new Map<string, string>()
/** How a run or session ends when its child could not start (or died). */
const CHILD_FAILURES = new Set(['BACKEND_CRASHED', 'BACKEND_UNAVAILABLE'])
/** A check's answer when the engine, not the launch plan, is what fails here. */
const ENGINE_CANNOT_LOAD = /could not be loaded|not installed|cannot find/

/**
 * An engine host whose first child ran `1 + 1` (else why not). When the launch plan came from the
 * cache and that first child failed, the plan is probed again and a new host checked once more:
 * a stale cache entry costs time, never a run.
 */
async function checkedHost(
  engine: EngineName,
  settings: ResolvedOptions,
  launcher: Launcher,
  host = createEngineHost(engine, settings, launcher),
): Promise<{ host: EngineHost; problem: string | undefined; result: LaunchResult }> {
  // With the plan known already, this starts the child the check runs in before anything awaits.
  host.prepare()
  const result = await launcher.plan()
  const problem = await host.check()
  if (problem === undefined) {
    launcher.started(result)
    return { host, problem, result }
  }
  const again = ENGINE_CANNOT_LOAD.test(problem) ? undefined : launcher.failed(result, problem)
  if (again === undefined) return { host, problem, result }
  const replanned = await again
  await host.dispose()
  const fresh = createEngineHost(engine, settings, launcher)
  return { host: fresh, problem: await fresh.check(), result: replanned }
}

/**
 * One engine, as the user chose it. A launch plan from the cache proves itself by its first
 * child's hello, without a run of its own; if a child of it is gone before that, the plan is
 * probed again, the host rebuilt on the new one, and a run that failed meanwhile tried once more:
 * a stale cache entry costs time, never a run.
 */
export function createEngineBackend(
  engine: EngineName,
  settings: ResolvedOptions,
  launcher: Launcher,
  /** Its engine passed a check with this plan before (`'auto'` remembered it): `diagnose()` runs none. */
  checkedBefore = false,
): EngineChoiceBackend {
  let replanned: Promise<unknown> | undefined
  const watch: ChildStartWatch = {
    started: (result) => launcher.started(result),
    failed: (result, reason) => {
      replanned ??= launcher.failed(result, reason)
    },
  }
  let host = createEngineHost(engine, settings, launcher, watch)
  /** Whether `host` was rebuilt on a new plan (it is once at most). */
  let rebuilt = false
  let prepared = false
  let disposed = false
  /** The host to use now: rebuilt once when a cached plan did not start a child. */
  const current = async (): Promise<EngineHost> => {
    const replacing = replanned
    if (replacing === undefined || rebuilt) return host
    await replacing
    if (!rebuilt) {
      rebuilt = true
      const stale = host
      host = createEngineHost(engine, settings, launcher)
      if (disposed) await host.dispose()
      void stale.dispose()
    }
    return host
  }

  return {
    specificationVersion: 'v1',
    name: 'subprocess',
    capabilities: host.capabilities,
    prepare() {
      // Once: the first child starts while core checks the first program.
      if (prepared) return
      prepared = true
      host.prepare()
    },
    async execute(request) {
      const first = await current()
      const outcome = await first.execute(request)
      // A run that failed on a host whose cached plan could not start its child runs once more.
      if (outcome.ok || !CHILD_FAILURES.has(outcome.error.code)) return outcome
      const again = await current()
      return again === first ? outcome : again.execute(request)
    },
    async openSession(request) {
      const first = await current()
      try {
        return await first.openSession(request)
      } catch (error) {
        const again = await current()
        if (again === first || !CHILD_FAILURES.has((error as { code?: string }).code ?? '')) throw error
        return again.openSession(request)
      }
    },
    dispose: () => {
      disposed = true
      return host.dispose()
    },
    async diagnose() {
      const chosen = await current()
      const diagnostics = await chosen.diagnose()
      if (!diagnostics.available || checkedBefore) return diagnostics
      const problem = await chosen.check()
      return problem === undefined ? diagnostics : { ...diagnostics, available: false, reason: problem }
    },
    async warm() {
      await (await current()).check()
    },
  }
}

/**
 * The first engine that works here. Its capabilities are the floor of the three choices
 * (`nodeVm`'s), since which engine runs is known only once children were started.
 *
 * Choosing starts a child of each engine in turn and runs `1 + 1` in it. When the launch plan
 * remembers that isolated-vm passed that check with it (the launch-plan cache keeps it, see
 * StoredDecision.engine), isolated-vm is used without a check: the first run is the child's first
 * run (a fresh process's first result 10–17 ms sooner). Should it not load now, the run ends
 * BACKEND_UNAVAILABLE before any guest code ran: the memory is dropped, the engines are checked
 * as without one, and the run goes to the engine chosen.
 */
export function createAutoBackend(
  settings: ResolvedOptions,
  launcher: Launcher,
  nodeVm: () => SandboxBackend & { diagnose(): Promise<Diagnostics>; warm(memoryMb?: number): Promise<void> },
): EngineChoiceBackend {
  const fallback = nodeVm()
  const passedOver: string[] = []
  let disposed = false
  let choice: Promise<EngineHost | undefined> | undefined
  const keyOf = (engine: EngineName) => JSON.stringify([engine, settings.nodePath, settings.networkIsolation])

  /** isolated-vm as the launch plan remembers it; null: no memory, or dropped; undefined: not looked yet. */
  let remembered: { backend: EngineChoiceBackend; result: LaunchResult } | null | undefined
  const rememberedEngine = (): EngineChoiceBackend | undefined => {
    // Disposed before it looked: no engine backend is made (it would start a child).
    if (disposed && remembered === undefined) return undefined
    if (remembered === undefined) {
      const known = launcher.known()
      const usable =
        known?.ok === true && known.diagnostics.launchPlan?.engine === 'isolated-vm' && !failedEngines.has(keyOf('isolated-vm'))
      remembered = usable ? { backend: createEngineBackend('isolated-vm', settings, launcher, true), result: known } : null
    }
    return remembered?.backend
  }
  /** What the memory is, as provenHere() and diagnose() say it; undefined without one. */
  const rememberedProof = (): string | undefined => {
    if (rememberedEngine() === undefined) return undefined
    const probedAt = remembered?.result.diagnostics.launchPlan?.probedAt
    return `the launch-plan cache remembers isolated-vm passing its check with this plan${probedAt === undefined ? '' : ` (probed ${probedAt})`}`
  }
  /** The remembered engine did not load: forget it here and in the cache, and choose as without it. */
  const forgetRemembered = () => {
    if (!remembered) return
    launcher.rememberEngine(remembered.result, undefined)
    void remembered.backend.dispose()
    remembered = null
  }

  const choose = (): Promise<EngineHost | undefined> =>
    (choice ??= (async () => {
      for (const engine of ['isolated-vm', 'quickjs'] as const) {
        if (disposed) return undefined
        const key = keyOf(engine)
        const known = failedEngines.get(key)
        if (known !== undefined) {
          passedOver.push(`${engine}: ${known}`)
          continue
        }
        const { host, problem, result } = await checkedHost(engine, settings, launcher)
        if (problem === undefined && !disposed) {
          // The next backend (in this process, or one reading the cache) starts it without a check.
          if (engine === 'isolated-vm') launcher.rememberEngine(result, engine)
          return host
        }
        passedOver.push(`${engine}: ${problem ?? 'the backend was disposed'}`)
        // An engine that cannot load here will not load for the next backend either.
        if (problem !== undefined && ENGINE_CANNOT_LOAD.test(problem)) failedEngines.set(key, problem)
        await host.dispose()
      }
      return undefined
    })())

  const backend = (host: EngineHost | undefined): Pick<SandboxBackend, 'execute' | 'openSession'> => host ?? fallback

  return {
    specificationVersion: 'v1',
    name: 'subprocess',
    capabilities: fallback.capabilities,
    provenHere() {
      if (disposed) return undefined
      try {
        return rememberedProof()
      } catch {
        return undefined
      }
    },
    prepare() {
      if (disposed) return
      // The engine's first child starts (or the choice does) while core checks the first program.
      const fast = rememberedEngine()
      if (fast !== undefined) fast.prepare?.()
      else void choose()
    },
    async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
      const fast = rememberedEngine()
      if (fast !== undefined) {
        const outcome = await fast.execute(request)
        if (outcome.ok || outcome.error.code !== 'BACKEND_UNAVAILABLE' || disposed) return outcome
        forgetRemembered()
      }
      // The first run waits for the choice (a child or two started): a stop must not wait for it.
      const chosen = await new Promise<EngineHost | undefined | ExecuteOutcome>((resolve) => {
        const stopWatching = watchStop(request, (error) => resolve({ ok: false, error }))
        void choose().then((host) => {
          stopWatching()
          resolve(host)
        })
      })
      if (chosen !== undefined && 'ok' in chosen) return chosen
      return backend(chosen).execute(request)
    },
    async openSession(request) {
      const fast = rememberedEngine()
      if (fast !== undefined) {
        try {
          return await fast.openSession!(request)
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'BACKEND_UNAVAILABLE' || disposed) throw error
          forgetRemembered()
        }
      }
      return backend(await choose()).openSession!(request)
    },
    async dispose() {
      disposed = true
      const host = await choice
      await Promise.all([host?.dispose(), fallback.dispose(), remembered?.backend.dispose()])
    },
    async diagnose() {
      const fast = rememberedEngine()
      if (fast !== undefined) {
        const diagnostics = await fast.diagnose()
        return { ...diagnostics, engine: 'isolated-vm', notes: [...diagnostics.notes, `engine isolated-vm: ${rememberedProof()}`] }
      }
      const host = await choose()
      const diagnostics = host === undefined ? await fallback.diagnose() : await host.diagnose()
      const engine = host?.engine ?? 'node-vm'
      const notes = passedOver.map((note) => `engine ${note}`)
      return { ...diagnostics, engine, notes: [...diagnostics.notes, ...notes] }
    },
    async warm(memoryMb) {
      const fast = rememberedEngine()
      if (fast !== undefined) return fast.warm(memoryMb)
      const host = await choose()
      if (host === undefined) await fallback.warm(memoryMb)
    },
  }
}
