/**
 * `engine: 'auto' | 'isolated-vm' | 'quickjs'`: the subprocess backend whose children host
 * engines. `'auto'` decides on first use, by starting a child of each engine in turn and running
 * a tiny program in it, and falls back to a fresh `node:vm` child per run when neither works.
 */
import { watchStop, type ExecuteOutcome, type ExecuteRequest, type SandboxBackend } from '@cordon/core/backend'
import type { EngineName } from '../engine-child/engine-init.js'
import type { ResolvedOptions } from '../options.js'
import type { Diagnostics, LaunchResult } from '../probe.js'
import { createEngineHost, type EngineHost } from './engine-backend.js'

export interface EngineChoiceBackend extends SandboxBackend {
  diagnose(): Promise<Diagnostics>
  warm(memoryMb?: number): Promise<void>
}

/** Engines that could not load in a child here, by launch settings: later backends skip them. */
const failedEngines = new Map<string, string>()

/** One engine, as the user chose it. */
export function createEngineBackend(
  engine: EngineName,
  settings: ResolvedOptions,
  launch: () => Promise<LaunchResult>,
): EngineChoiceBackend {
  const host = createEngineHost(engine, settings, launch)
  let prepared = false
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
    execute: (request) => host.execute(request),
    openSession: (request) => host.openSession(request),
    dispose: () => host.dispose(),
    async diagnose() {
      const diagnostics = await host.diagnose()
      if (!diagnostics.available) return diagnostics
      const problem = await host.check()
      return problem === undefined ? diagnostics : { ...diagnostics, available: false, reason: problem }
    },
    async warm() {
      await host.check()
    },
  }
}

/**
 * The first engine that works here. Its capabilities are the floor of the three choices
 * (`nodeVm`'s), since which engine runs is known only once children were started.
 */
export function createAutoBackend(
  settings: ResolvedOptions,
  launch: () => Promise<LaunchResult>,
  nodeVm: () => SandboxBackend & { diagnose(): Promise<Diagnostics>; warm(memoryMb?: number): Promise<void> },
): EngineChoiceBackend {
  const fallback = nodeVm()
  const passedOver: string[] = []
  let disposed = false
  let choice: Promise<EngineHost | undefined> | undefined

  const choose = (): Promise<EngineHost | undefined> =>
    (choice ??= (async () => {
      for (const engine of ['isolated-vm', 'quickjs'] as const) {
        if (disposed) return undefined
        const key = JSON.stringify([engine, settings.nodePath, settings.networkIsolation])
        const known = failedEngines.get(key)
        if (known !== undefined) {
          passedOver.push(`${engine}: ${known}`)
          continue
        }
        const host = createEngineHost(engine, settings, launch)
        const problem = await host.check()
        if (problem === undefined && !disposed) return host
        passedOver.push(`${engine}: ${problem ?? 'the backend was disposed'}`)
        // An engine that cannot load here will not load for the next backend either.
        if (problem !== undefined && /could not be loaded|not installed|cannot find/.test(problem)) failedEngines.set(key, problem)
        await host.dispose()
      }
      return undefined
    })())

  const backend = (host: EngineHost | undefined): Pick<SandboxBackend, 'execute' | 'openSession'> => host ?? fallback

  return {
    specificationVersion: 'v1',
    name: 'subprocess',
    capabilities: fallback.capabilities,
    prepare() {
      // The engine is chosen (its first child started) while core checks the first program.
      if (!disposed) void choose()
    },
    async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
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
      return backend(await choose()).openSession!(request)
    },
    async dispose() {
      disposed = true
      const host = await choice
      await Promise.all([host?.dispose(), fallback.dispose()])
    },
    async diagnose() {
      const host = await choose()
      const diagnostics = host === undefined ? await fallback.diagnose() : await host.diagnose()
      const engine = host?.engine ?? 'node-vm'
      const notes = passedOver.map((note) => `engine ${note}`)
      return { ...diagnostics, engine, notes: [...diagnostics.notes, ...notes] }
    },
    async warm(memoryMb) {
      const host = await choose()
      if (host === undefined) await fallback.warm(memoryMb)
    },
  }
}
