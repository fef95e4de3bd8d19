/**
 * Facts about the JavaScript runtime this process is, used for error messages and for
 * the one documented requirement isolated-vm has: `--no-node-snapshot` on Node 20+.
 * Nothing here decides whether isolated-vm loads; loading it decides that.
 */
export interface ProcessFacts {
  versions: Record<string, string | undefined>
  execArgv: readonly string[]
  env: Record<string, string | undefined>
  isDeno: boolean
}

export function currentProcess(): ProcessFacts {
  return {
    versions: process.versions,
    execArgv: process.execArgv,
    env: process.env,
    isDeno: typeof (globalThis as { Deno?: unknown }).Deno !== 'undefined',
  }
}

/** `bun`, `deno` or `node` — Bun and Deno report a `process.versions.node` too. */
export function runtimeName(facts: ProcessFacts): 'bun' | 'deno' | 'node' {
  if (facts.versions.bun !== undefined) return 'bun'
  if (facts.isDeno || facts.versions.deno !== undefined) return 'deno'
  return 'node'
}

export function nodeMajor(facts: ProcessFacts): number {
  return Number.parseInt(facts.versions.node ?? '0', 10)
}

/** The isolated-vm release known to work on a Node major (see the README's table). */
export function recommendedIsolatedVm(major: number): string {
  if (major >= 24) return '7.0.1'
  if (major >= 22) return '6.2.0'
  return '5.0.4'
}

/**
 * isolated-vm's documentation requires `--no-node-snapshot` from Node 20 on. The flag
 * can come from the command line (`process.execArgv`) or from NODE_OPTIONS, which
 * does not show up in execArgv. Returns why the process is unfit, or undefined.
 */
export function missingNoNodeSnapshot(facts: ProcessFacts): string | undefined {
  if (runtimeName(facts) !== 'node' || nodeMajor(facts) < 20) return undefined
  const fromOptions = (facts.env.NODE_OPTIONS ?? '').split(/\s+/)
  if (facts.execArgv.includes('--no-node-snapshot') || fromOptions.includes('--no-node-snapshot')) return undefined
  return (
    `isolated-vm needs Node ${facts.versions.node} to be started with --no-node-snapshot. ` +
    'Fix: run `node --no-node-snapshot app.js`, or set NODE_OPTIONS=--no-node-snapshot ' +
    "(for vitest: `execArgv: ['--no-node-snapshot']` in vitest.config.ts)."
  )
}
