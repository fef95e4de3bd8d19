/**
 * `@cordon/core`: the user API. Backend authors import the contract and the guest protocol
 * from `@cordon/core/backend`.
 */
export { ERROR_CODES, LIMIT_ERROR_CODES, SandboxError, isSandboxError } from './errors.js'
export type { ErrorCode, SandboxErrorOptions } from './errors.js'
export { LOG_LEVELS } from './result.js'
export type { LogEntry, LogLevel, RunError, RunFailure, RunInterrupt, RunInterrupted, RunResult, RunStats, RunSuccess } from './result.js'
export type { DurableOptions } from './durable/durable-options.js'
export type { AdmissionOptions } from './admission/admission-options.js'
export type { TraceOptions } from './trace/trace-options.js'
export type { CpuProfileOptions, InspectorEndpoint, InspectorOptions } from './inspector/inspector-options.js'
export type { CpuProfile, CpuProfileCallFrame, CpuProfileNode } from './inspector/cpu-profile.js'
export type { ResumeOptions } from './durable/resume-options.js'
export type { ToolInterrupt } from './durable/interrupt.js'
export { DEFAULT_LIMITS, LIMIT_ENV_VARS, LIMIT_NAMES, resolveLimits } from './limits.js'
export type { Limits, ResolvedLimits } from './limits.js'
export type { JsonSchema, RunOptions, SandboxDefaults, ToolContext, ToolDefinition, ToolSet } from './options.js'
export { FETCH_DEFAULTS } from './fetch/fetch-options.js'
export type { FetchOptions, FetchSecret } from './fetch/fetch-options.js'
export type { ModuleMap, ModuleSource } from './modules/module-options.js'
export type {
  RunEvent,
  RunEventListener,
  RunLogEvent,
  RunResultEvent,
  ToolEndEvent,
  ToolErrorEvent,
  ToolErrorReason,
  ToolStartEvent,
} from './run-events.js'
/** What `backend.capabilities` declares; the contract itself is in `@cordon/core/backend`. */
export type { BackendCapabilities, BooleanCapability } from './backend/v1/capabilities.js'
/** The type of what `createSandbox` takes; implementing one starts at `@cordon/core/backend`. */
export type { SandboxBackend } from './backend/v1/sandbox-backend.js'
export type { Sandbox } from './sandbox-types.js'
export type { Session, SessionEnd, SessionInfo, SessionOptions, SessionRunOptions } from './session-types.js'
export { createSandbox } from './sandbox.js'
/** ECMAScript reserved words: a global or a tool name part cannot be one (apps that derive tool names use it). */
export { RESERVED_GLOBAL_NAMES, RESERVED_WORDS } from './reserved-names.js'
