import type { FetchOptions } from './fetch/fetch-options.js'
import type { ToolInterrupt } from './durable/interrupt.js'
import type { DurableOptions } from './durable/durable-options.js'
import type { Limits } from './limits.js'
import type { AdmissionOptions } from './admission/admission-options.js'
import type { TraceOptions } from './trace/trace-options.js'
import type { RunEventListener } from './run-events.js'
import type { ModuleMap } from './modules/module-options.js'
import type { CpuProfileOptions, InspectorOptions } from './inspector/inspector-options.js'

/** JSON Schema object (draft-07 or 2020-12, chosen by `$schema`; 2020-12 when absent). */
export type JsonSchema = Record<string, unknown> | boolean

export interface ToolContext {
  /** Aborted when the run ends early (timeout, abort, a limit) or the tool's own `timeoutMs` passes; stop work and return. */
  signal: AbortSignal
  /** The dotted tool name that was called. */
  name: string
  /**
   * Pauses the run: `return ctx.interrupt(payload)` ends it at once with an INTERRUPTED result
   * that carries `payload` and a signed `continuation`; `sandbox.resume(continuation, { answer })`
   * later gives this call `answer` as its result. Needs `createSandbox(backend, { durable })`;
   * elsewhere (and in sessions) the run ends with UNSUPPORTED.
   */
  interrupt(payload?: unknown): ToolInterrupt
}

// `any` by default, as tool libraries do: `execute` is typed by its `inputSchema` or its own annotation.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ToolDefinition<Args = any, Result = unknown> {
  description?: string
  /** Validates the guest's argument before `execute` runs; invalid input rejects in the guest. */
  inputSchema?: JsonSchema
  /**
   * Call without `await` in the guest. Needs a backend with `capabilities.syncHostCalls`;
   * elsewhere a run that declares a sync tool ends with UNSUPPORTED.
   */
  sync?: boolean
  /**
   * Longest a call may take, in ms (an integer from 1 to 2^31 - 1). A call that outlives it
   * rejects in the guest with a catchable `Error` naming the tool, and its `signal` aborts; the
   * run's own `timeoutMs` still wins. Not for `sync` tools: nothing can stop host code that runs
   * synchronously.
   */
  timeoutMs?: number
  /**
   * Ask before each call (or those for which the function returns true): the run pauses before
   * `execute` runs, as with `ctx.interrupt`, and `resume(continuation, { answer })` approves the
   * call (execute then runs; the answer's value is not used) while `{ reject }` refuses it (the
   * guest's call rejects). Sugar over `ctx.interrupt`, with the same requirements.
   */
  needsApproval?: boolean | ((args: Args) => boolean | Promise<boolean>)
  execute(args: Args, context: ToolContext): Result | ToolInterrupt | Promise<Result | ToolInterrupt>
}

export type ToolSet = Record<string, ToolDefinition>

export interface RunOptions extends Partial<Limits> {
  /** Host functions, keyed by dotted name: `'github.listIssues'` → `await github.listIssues(args)`. */
  tools?: ToolSet
  /** Data copied into the guest as global variables (a copy: guest changes never reach the host). */
  globals?: Record<string, unknown>
  /** Aborts the run: it ends with ABORTED and pending tools get their signal. */
  signal?: AbortSignal
  /**
   * Called with each event of the run as it happens, in order: each log entry kept, each tool
   * call's start and end (or error), and last the result, just before `run` resolves; nothing
   * after. Never awaited; what it throws (or its promise rejects with) is caught and the run is
   * unaffected (reported once per run as a process warning). See `RunEvent`.
   */
  onEvent?: RunEventListener
  /**
   * Put each tool call's arguments (`tool-start`) and result (`tool-end`) in the events given to
   * `onEvent`. Off by default: events carry names, sizes and durations only, since arguments and
   * results may hold secrets or personal data.
   */
  includeToolValuesInEvents?: boolean
  /**
   * Give each log entry its console call's arguments as values (`LogEntry.args`, and in `log`
   * events) beside the formatted `message`, so the host can format them its own way. They cross
   * by the value model within `maxLogBytes` (serialized); arguments over it, or holding a function
   * or symbol, are left out of that entry. Off by default.
   */
  logArgs?: boolean
  /**
   * Runs of different partitions never share an engine process: backends that keep many runs in
   * one process (the subprocess backend's engine children) start separate ones per partition. Use
   * one per tenant. Default: one partition per sandbox, so two sandboxes never share a process.
   */
  partition?: string
  /**
   * Gives the guest a WHATWG-shaped `fetch` (with `Headers`, `Request`, `Response`), performed by
   * the host and limited to the origins in `allow`. Without it the guest has no fetch at all.
   * Each request counts as a tool call. Not available in sessions. `false` turns off a fetch
   * the sandbox defaults give.
   */
  fetch?: FetchOptions | false
  /**
   * ES modules the program may `import` (statically or with `import()`), keyed by the exact
   * specifier it writes: `{ 'lodash-es': source, './helpers.js': () => loadSource() }`. Nothing
   * else is importable: no files, no network, no package resolution. A function is a loader,
   * called on the host once per run before the program starts. Keys ending in `.ts`, `.mts` or
   * `.cts` are TypeScript (types are stripped). Modules evaluate in the guest, once, when first
   * imported, within the run's limits. Not available in sessions.
   */
  modules?: ModuleMap
  /**
   * OpenTelemetry spans for the run (`cordon.run`) and each tool call (`cordon.tool <name>`), made
   * when `@opentelemetry/api` is installed and the application registered a tracer provider;
   * nothing otherwise. On by default, carrying no code, arguments or values (see
   * `TraceOptions.includeValues`); `false` turns it off.
   */
  trace?: boolean | TraceOptions
  /**
   * Debug the program with Chrome DevTools (or any Chrome DevTools Protocol client): the guest's
   * engine listens on a loopback WebSocket at an unguessable path while the run lasts, showing the
   * code as the user wrote it (TypeScript included) and skipping cordon's own runtime. Whoever
   * connects controls the guest, tools included: for development only (SECURITY.md). Needs
   * `capabilities.inspector` (isolated-vm engine children; ivm in process when created with
   * `inspector: true`); elsewhere the run ends with UNSUPPORTED. In a session, each run that has
   * it gets its own socket, and the session must be opened with `inspector` or `cpuProfile` (its
   * engine is made for it). Off by default; the deadline still applies unless `suspendDeadline`.
   */
  inspector?: boolean | InspectorOptions
  /**
   * Record a CPU profile of the run: `result.cpuProfile`, in the `.cpuprofile` format DevTools
   * loads, with the program's frames at the positions the user wrote. Taken when the program ends
   * by itself (a value or an error) and when its deadline or an abort stops it (up to the stop:
   * where a spinning program spent its time), not when another limit or a crash ends it. Needs
   * `capabilities.inspector`, as `inspector`.
   */
  cpuProfile?: boolean | CpuProfileOptions
}

/** Defaults for every run of one sandbox; `run` options win. */
export type SandboxDefaults = Omit<RunOptions, 'signal'> &
  AdmissionOptions & {
    /** Lets tools pause runs and `sandbox.resume` continue them (see DurableOptions). Off by default. */
    durable?: DurableOptions
  }
