// A fresh project outside the workspace that installs our tarballs with plain npm, as a user would.
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'
import { writeMetric } from './metrics.js'

export interface RunResult {
  code: number | null
  stdout: string
  stderr: string
}

// npm's variables (`npm test` sets npm_config_local_prefix to the workspace, which would send
// a nested install there) and vitest's own (a nested vitest would take them as its own).
const foreign = /^(npm_|pnpm_|VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$|MODE$|DEV$|PROD$|SSR$|BASE_URL$)/i

/** The environment of a user's shell, with one npm cache shared by every project of the run. */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const cache = process.env.npm_config_cache ?? join(homedir(), '.npm')
  const kept = Object.entries(process.env).filter(([name]) => !foreign.test(name))
  const mirror = inject('packInstall').isolatedVmMirror
  return {
    ...Object.fromEntries(kept),
    // isolated-vm 5's prebuilt binary, from the workspace's build (isolated-vm-mirror.ts).
    ...(mirror ? { npm_config_isolated_vm_binary_host_mirror: mirror } : {}),
    npm_config_cache: cache,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    // node-gyp compiles isolated-vm on every core rather than one.
    JOBS: 'max',
    ...extra,
  }
}

export function run(command: string, args: string[], cwd: string, env = userEnv()): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 2 ** 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

export interface Consumer {
  dir: string
  run(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<RunResult>
}

export interface ConsumerOptions {
  /** Our packages to install from this run's tarballs. */
  packages: string[]
  /** Anything else, from the registry (`typescript@5.9.3`). */
  registry?: string[]
  /** Copied in before installing (its package.json included). */
  fixture?: string
  /** Skips install scripts: for projects that only read files (types), not isolated-vm's build. */
  ignoreScripts?: boolean
}

export async function installConsumer(name: string, options: ConsumerOptions): Promise<Consumer> {
  const { root, tarballs } = inject('packInstall')
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  if (options.fixture) cpSync(options.fixture, dir, { recursive: true })
  else writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }, null, 2))

  const specs = options.packages.map((pkg) => {
    const tarball = tarballs[pkg]
    if (!tarball) throw new Error(`no tarball for ${pkg}: is it a publishable package?`)
    return tarball
  })
  const flags = ['install', '--no-audit', '--no-fund', '--prefer-offline', ...(options.ignoreScripts ? ['--ignore-scripts'] : [])]
  const started = performance.now()
  const install = await run('npm', [...flags, ...specs, ...(options.registry ?? [])], dir)
  const installSeconds = Number(((performance.now() - started) / 1000).toFixed(1))
  if (install.code !== 0) throw new Error(`npm install failed in ${dir}:\n${install.stdout}\n${install.stderr}`.slice(-6000))

  const du = await run('du', ['-sb', 'node_modules'], dir)
  const nodeModulesBytes = Number(du.stdout.split('\t')[0]) || 0
  writeMetric(root, `install-${name}`, { project: name, packages: options.packages, installSeconds, nodeModulesBytes })
  return { dir, run: (command, args, env) => run(command, args, dir, env) }
}
