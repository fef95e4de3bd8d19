/**
 * Facts about the JavaScript runtime this process is. They order candidates and
 * explain failures; they never decide on their own whether a backend works (probing does).
 */
export interface RuntimeFacts {
  /** Checked in this order: Bun and Deno both report a `process.versions.node` too; `browser`: a page or its workers, no Node. */
  kind: 'node' | 'bun' | 'deno' | 'browser' | 'other'
  /** The runtime's own version (Bun's, Deno's or Node's), '' when unknown. */
  version: string
  /** `process.versions.modules` on Node: the ABI a native addon must be built for. */
  nodeAbi?: string
  /** `process.platform`-style name plus architecture, e.g. `linux-x64`; 'unknown' elsewhere. */
  platform: string
  /** Node was started with `--no-node-snapshot` (in `execArgv` or `NODE_OPTIONS`). */
  noNodeSnapshot: boolean
}

interface ProcessLike {
  versions?: Record<string, string | undefined>
  execArgv?: readonly string[]
  env?: Record<string, string | undefined>
  platform?: string
  arch?: string
}

interface RuntimeGlobals {
  process?: ProcessLike
  Bun?: { version?: string }
  Deno?: { version?: { deno?: string } }
  /** A page has a document; a worker of one has importScripts (module workers too). */
  document?: unknown
  importScripts?: unknown
}

/** Reads the facts of the current process. Cheap, no I/O. */
export function currentRuntimeFacts(): RuntimeFacts {
  return runtimeFactsOf(globalThis)
}

/** The facts for a given set of globals (exported for tests). */
export function runtimeFactsOf(globals: RuntimeGlobals): RuntimeFacts {
  const proc = globals.process
  const versions = proc?.versions ?? {}
  const platform = proc?.platform ? `${proc.platform}${proc.arch ? `-${proc.arch}` : ''}` : 'unknown'
  if (versions.bun !== undefined || globals.Bun !== undefined) {
    return { kind: 'bun', version: versions.bun ?? globals.Bun?.version ?? '', platform, noNodeSnapshot: false }
  }
  if (globals.Deno !== undefined) {
    return { kind: 'deno', version: globals.Deno.version?.deno ?? versions.deno ?? '', platform, noNodeSnapshot: false }
  }
  if (versions.node !== undefined) {
    const facts: RuntimeFacts = { kind: 'node', version: versions.node, platform, noNodeSnapshot: hasNoNodeSnapshot(proc) }
    if (versions.modules !== undefined) facts.nodeAbi = versions.modules
    return facts
  }
  if (globals.document !== undefined || typeof globals.importScripts === 'function') {
    return { kind: 'browser', version: '', platform, noNodeSnapshot: false }
  }
  return { kind: 'other', version: '', platform, noNodeSnapshot: false }
}

/** `NODE_OPTIONS=--no-node-snapshot` does not show up in `execArgv`: check both. */
function hasNoNodeSnapshot(proc: ProcessLike | undefined): boolean {
  const fromOptions = (proc?.env?.NODE_OPTIONS ?? '').split(/\s+/)
  return (proc?.execArgv ?? []).includes('--no-node-snapshot') || fromOptions.includes('--no-node-snapshot')
}

/** The major version of Node, for `kind: 'node'` only; 0 otherwise. */
export function nodeMajor(facts: RuntimeFacts): number {
  return facts.kind === 'node' ? Number.parseInt(facts.version, 10) || 0 : 0
}

/** A short name for messages: `Node 26.3.0`, `Bun 1.2.0`, `Deno 2.1.0`. */
export function runtimeLabel(facts: RuntimeFacts): string {
  const name = { node: 'Node', bun: 'Bun', deno: 'Deno', browser: 'this browser', other: 'this runtime' }[facts.kind]
  return facts.version ? `${name} ${facts.version}` : name
}
