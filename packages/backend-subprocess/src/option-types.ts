/**
 * The backend's options as the user gives them and as they are after checks: types only, so
 * that option-defaults.ts (which the early start loads without core) and options.ts share them.
 */
export type NetworkIsolationMode = 'required' | 'preferred' | 'off'

/**
 * What runs the guest inside the locked-down children:
 * - `'isolated-vm'`: long-lived children, each hosting a fresh V8 isolate per run (needs
 *   @cordon/backend-ivm, and isolated-vm built for the children's Node);
 * - `'quickjs'`: long-lived children, each hosting a fresh QuickJS instance per run (needs
 *   @cordon/backend-quickjs);
 * - `'node-vm'`: a fresh child per run, running the guest in a `node:vm` context;
 * - `'auto'` (default): the first of those three that works here, tried in that order.
 */
export type SubprocessEngine = 'auto' | 'isolated-vm' | 'quickjs' | 'node-vm'

export interface SubprocessBackendOptions {
  /**
   * Node.js binary the children run on. Default: the running Node (`process.execPath`);
   * under Bun or Deno, the first `node` on PATH.
   */
  nodePath?: string
  /** Ready children kept warm per `memoryMb` value in use. Default 2; 0 spawns a child per run. */
  poolSize?: number
  /** Warm children of a `memoryMb` value are killed after this long without a run. Default 30 000 ms. */
  poolIdleMs?: number
  /**
   * Network namespace for the children (Linux, `unshare`). `'preferred'` (default): used when
   * it works. `'required'`: runs fail with BACKEND_UNAVAILABLE unless the child provably has
   * no network, and `capabilities.networkIsolation` is `true`. `'off'`: never used.
   */
  networkIsolation?: NetworkIsolationMode
  /** How often the host samples a running child's resident memory (Linux /proc). Default 10 ms; 0 turns it off. */
  memoryCheckMs?: number
  /** What runs the guest in the children; see `SubprocessEngine`. Default `'auto'`. */
  engine?: SubprocessEngine
  /** Engine children at most (`'isolated-vm'`, `'quickjs'`). Default: the number of cores, 2 to 8. */
  maxChildren?: number
  /** Runs one engine child serves at once. Default 4. */
  runsPerChild?: number
  /**
   * The sum of `memoryMb` of the runs (and sessions) one engine child serves at once, and with
   * its own needs the ceiling on its memory where `prlimit` works. A run larger than this gets a
   * child to itself. Default 1024.
   */
  childMemoryMb?: number
  /** An engine child takes no new runs after this many, and is replaced. Default 1000. */
  runsPerChildLifetime?: number
  /**
   * Where the decision of how children are launched here is cached, so that a fresh process skips
   * the probe's process starts: an absolute directory, or `false` for no cache. Default
   * `$XDG_CACHE_HOME/cordon/launch-plans`, else `~/.cache/cordon/launch-plans`.
   */
  launchPlanCache?: string | false
}

export type ResolvedOptions = Readonly<
  Required<Omit<SubprocessBackendOptions, 'nodePath' | 'launchPlanCache'>> & {
    nodePath: string | undefined
    /** undefined: the default directory, found on first use. */
    launchPlanCache: string | false | undefined
  }
>
