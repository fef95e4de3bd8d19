export { ERROR_CODES, LIMIT_ERROR_CODES, SandboxError, isSandboxError } from './errors.js'
export type { ErrorCode, SandboxErrorOptions } from './errors.js'
export { LOG_LEVELS } from './result.js'
export type { LogEntry, LogLevel, RunError, RunResult, RunStats } from './result.js'
export { DEFAULT_LIMITS, LIMIT_ENV_VARS, LIMIT_NAMES, resolveLimits } from './limits.js'
export type { Limits, ResolvedLimits } from './limits.js'
export type { JsonSchema, RunOptions, SandboxDefaults, ToolContext, ToolDefinition, ToolSet } from './options.js'
export type { BackendCapabilities, BooleanCapability } from './spec/v1/capabilities.js'
export type {
  BackendRunStats,
  ExecuteOutcome,
  ExecuteRequest,
  HostBridge,
  BackendSession,
  SandboxBackend,
  SessionRequest,
  ToolDescriptor,
} from './spec/v1/backend.js'
export type { GuestHostFunctions, GuestRuntime, GuestSetup } from './guest/protocol.js'
export type { Sandbox } from './sandbox-types.js'
export type { Session, SessionEnd, SessionInfo, SessionOptions, SessionRunOptions } from './session-types.js'
export { GUEST_FILENAME, GUEST_RUNTIME_SOURCE } from './guest/runtime-source.js'
export { createGuestHost, outcomeFromDone, toolErrorPayload } from './host/guest-host.js'
export type { GuestDone, GuestEngine, GuestHost } from './host/guest-host.js'
export { createHostSwitch } from './host/host-switch.js'
export type { HostSwitch } from './host/host-switch.js'
export { createSandbox } from './sandbox.js'
export { decodeValue, encodeValue } from './wire.js'
