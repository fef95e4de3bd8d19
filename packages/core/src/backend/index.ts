/**
 * `@cordon/core/backend`: everything a backend author needs, nothing a user needs.
 * The user API (createSandbox, results, errors, limits) is the root entry, `@cordon/core`.
 */
export type { BackendCapabilities, BooleanCapability } from './v1/capabilities.js'
export type {
  BackendRunStats,
  BackendSession,
  ExecuteOutcome,
  ExecuteRequest,
  SandboxBackend,
  SessionRequest,
  ToolBridge,
  ToolDescriptor,
} from './v1/sandbox-backend.js'
export type { BackendFactory } from './backend-factory.js'
export { unmetCapabilities } from './capability-requirement.js'
export type { CapabilityRequirement } from './capability-requirement.js'
export type { GuestRuntime, GuestSetup, RelayFunctions } from '../guest/protocol.js'
export { GUEST_FILENAME, GUEST_RUNTIME_SOURCE } from '../guest/runtime-source.js'
export { createGuestRelay, outcomeFromDone, toolErrorPayload } from './guest-relay.js'
export type { GuestDone, GuestEngine, GuestRelay } from './guest-relay.js'
export { createRelaySwitch } from './relay-switch.js'
export { BACKEND_STOP_GRACE_MS, RUN_ENDED_REPLY, RunStop, abortedError, stopError, timeoutError, watchStop } from './run-stop.js'
export type { RelaySwitch } from './relay-switch.js'
export { decodeValue, encodeValue } from '../wire.js'
export { describeOptionValue } from '../limits.js'
