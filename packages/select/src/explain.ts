import type { BackendCandidate } from './candidates.js'
import { nodeMajor, runtimeLabel, type RuntimeFacts } from './runtime-facts.js'

/** Why a candidate cannot be used, in plain words, and what to do about it. */
export interface Explanation {
  reason: string
  fix: string
}

export interface Failure {
  candidate: BackendCandidate
  facts: RuntimeFacts
  /** The error or BACKEND_UNAVAILABLE message, as the backend gave it. */
  message: string
  /** `error.code` of a thrown error, when it had one. */
  code?: string
}

/** A failure plus `detail`: its message without the backend's own "Fix: …" advice. */
type Rule = (failure: Failure & { detail: string }) => Explanation | undefined

/**
 * The isolated-vm major known to work (RUNTIMES.md) for a Node ABI (NODE_MODULE_VERSION:
 * 115 = Node 20, 127 = 22, 137 = 24, 147 = 26), else for this Node's major. A probe confirms.
 */
function isolatedVmFor(facts: RuntimeFacts, abi?: number): string {
  if (abi !== undefined) return abi >= 137 ? '7' : abi >= 127 ? '6' : '5'
  const major = nodeMajor(facts)
  return major >= 24 ? '7' : major >= 22 ? '6' : '5'
}

const PNPM_BUILD_HINT = 'with pnpm also allow its build script: "pnpm": { "onlyBuiltDependencies": ["isolated-vm"] }'

function aboutIsolatedVm(f: Failure): boolean {
  return f.candidate.name === 'ivm' || /isolated[-_]vm/i.test(f.message)
}

/** The version named in a load failure: the ivm backend's alias (`isolated-vm-5: built for…`) or a path. */
function isolatedVmVersion(detail: string): string {
  const alias = /isolated-vm-(\d+)\s*:\s*built for/.exec(detail)?.[1]
  if (alias) return ` ${alias}.x`
  const exact = /isolated-vm@(\d+\.\d+\.\d+)/.exec(detail)?.[1]
  return exact ? ` ${exact}` : ''
}

const RULES: Rule[] = [
  // Bun and Deno report a Node version and ABI too, but cannot load V8 addons built for Node.
  (f) => {
    if (f.facts.kind === 'node' || !aboutIsolatedVm(f)) return undefined
    return {
      reason: `isolated-vm is a native addon for Node.js; ${runtimeLabel(f.facts)} cannot load it (${f.detail})`,
      fix: `use the quickjs backend on ${f.facts.kind === 'bun' ? 'Bun' : f.facts.kind === 'deno' ? 'Deno' : 'this runtime'} (npm install @cordon/backend-quickjs)`,
    }
  },
  (f) => {
    const abi =
      /NODE_MODULE_VERSION (\d+)[\s\S]*?NODE_MODULE_VERSION (\d+)/.exec(f.message) ??
      /module version (\d+), this runtime needs (\d+)/.exec(f.message)
    if (!abi) return undefined
    const what = aboutIsolatedVm(f) ? `isolated-vm${isolatedVmVersion(f.detail)}` : 'a native addon it uses'
    const wanted = isolatedVmFor(f.facts, Number(abi[2]))
    return {
      reason: `${what} is built for NODE_MODULE_VERSION ${abi[1]}, this is ${abi[2]} (${runtimeLabel(f.facts)})`,
      fix: aboutIsolatedVm(f)
        ? `install isolated-vm@${wanted} (npm install isolated-vm@${wanted}); ${PNPM_BUILD_HINT}`
        : `reinstall ${f.candidate.module} under ${runtimeLabel(f.facts)} so its native addons are rebuilt`,
    }
  },
  (f) => {
    if (!/No native build was found/i.test(f.message)) return undefined
    const abi = /\babi=(\d+)/.exec(f.message)?.[1]
    return {
      reason: `no prebuilt isolated-vm binary fits ${runtimeLabel(f.facts)} on ${f.facts.platform}, and none was built from source`,
      fix: `npm install isolated-vm@${isolatedVmFor(f.facts, abi === undefined ? undefined : Number(abi))} (building from source needs python3, make and a C++ compiler); ${PNPM_BUILD_HINT}`,
    }
  },
  (f) => {
    if (!/--no-node-snapshot/.test(f.message)) return undefined
    return {
      reason: `isolated-vm needs ${runtimeLabel(f.facts)} to be started with --no-node-snapshot`,
      fix: 'run node with --no-node-snapshot (or set NODE_OPTIONS=--no-node-snapshot)',
    }
  },
  (f) => {
    if (!aboutIsolatedVm(f) || !/not installed/.test(f.message) || /built for|undefined symbol/.test(f.message)) return undefined
    return {
      reason: 'isolated-vm is not installed (an optional dependency of @cordon/backend-ivm that was skipped or failed to build)',
      fix: `npm install isolated-vm@${isolatedVmFor(f.facts)}; ${PNPM_BUILD_HINT}`,
    }
  },
  (f) => {
    if (!/undefined symbol/.test(f.message)) return undefined
    return {
      reason: `a native addon does not fit ${runtimeLabel(f.facts)} (${f.detail})`,
      fix: aboutIsolatedVm(f) ? `npm install isolated-vm@${isolatedVmFor(f.facts)}; ${PNPM_BUILD_HINT}` : `reinstall ${f.candidate.module}`,
    }
  },
  // Child processes forbidden: Deno without --allow-run, Node's permission model, locked-down hosts.
  (f) => {
    const denied =
      f.code === 'ERR_ACCESS_DENIED' || /ERR_ACCESS_DENIED|--allow-run|spawn\S* (EACCES|EPERM)|operation not permitted/i.test(f.message)
    if (!denied) return undefined
    return {
      reason: `this process may not start child processes (${f.detail})`,
      fix:
        f.facts.kind === 'deno'
          ? 'run deno with --allow-run (and --allow-read, --allow-env), or use quickjs'
          : 'allow child processes for this process, or use quickjs',
    }
  },
  // The backend's own advice, after "Fix:".
  (f) => {
    const split = /^([\s\S]*?)\s*\bFix:\s*([\s\S]+)$/.exec(f.message)
    if (!split?.[1] || !split[2]) return undefined
    return { reason: split[1].replace(/[.\s]+$/, ''), fix: split[2].trim() }
  },
]

/** Turns a backend's failure into a reason and a fix, using runtime facts only to explain. */
export function explainFailure(failure: Failure): Explanation {
  const detail = failure.message.replace(/\s*\bFix:[\s\S]*$/, '').replace(/[.\s]+$/, '')
  for (const rule of RULES) {
    const explanation = rule({ ...failure, detail })
    if (explanation) return explanation
  }
  return {
    reason: detail || failure.message,
    fix: `see ${failure.candidate.module}'s README for what it needs, or remove it with CORDON_DISABLE=${failure.candidate.name}`,
  }
}

/** Why `import(module)` failed: the package itself missing, one of its dependencies or files, or a load error. */
export function explainImportFailure(
  candidate: BackendCandidate,
  error: unknown,
  facts: RuntimeFacts,
): Explanation & { notInstalled?: boolean } {
  const code = errorCode(error)
  const message = firstLine(error)
  // The browser build's refusal of a backend that needs Node (builtin-imports.browser.ts).
  if (code === 'ERR_BROWSER') return { reason: message, fix: 'in a browser, use the quickjs backend (npm install @cordon/backend-quickjs)' }
  // Node and Bun: "Cannot find package 'x'" / "Cannot find module '/path'"; Deno: 'Import "x" not a dependency';
  // Vite (vitest, dev servers): 'Could not resolve "x"'.
  const missing = [
    /Cannot find (?:package|module) ['"]([^'"]+)['"]/,
    /Import ['"]([^'"]+)['"] not a dependency/,
    /Could not resolve ['"]([^'"]+)['"]/,
  ]
    .map((pattern) => pattern.exec(message)?.[1])
    .find((name) => name !== undefined)
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || missing) {
    if (missing === undefined || missing === candidate.module || missing.endsWith(`/${candidate.module}`)) {
      return { reason: `the package ${candidate.module} is not installed`, fix: candidate.install, notInstalled: true }
    }
    if (/^(?:\/|file:|[A-Za-z]:[\\/])/.test(missing)) {
      return {
        reason: `the package ${candidate.module} is installed but the file ${missing} is missing (an unbuilt or damaged install)`,
        fix: `reinstall it: ${candidate.install}`,
      }
    }
    return {
      reason: `${candidate.module} is installed but cannot load its dependency ${missing}`,
      fix: `reinstall it: ${candidate.install}`,
    }
  }
  return explainFailure({ candidate, facts, message: `${candidate.module} failed to load: ${message}`, ...(code ? { code } : {}) })
}

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/** The message of an error (or anything thrown) cut to a readable size. */
export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  const trimmed = text.trim().split('\n').slice(0, 3).join(' ')
  return trimmed.length > 400 ? `${trimmed.slice(0, 400)}…` : trimmed
}
