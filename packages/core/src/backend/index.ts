/**
 * `@cordon/core/backend`: everything a backend author needs, nothing a user needs.
 * The user API (createSandbox, results, errors, limits) is the root entry, `@cordon/core`.
 */
export type { BackendCapabilities, BooleanCapability } from '../spec/v1/capabilities.js'
export type {
  BackendRunStats,
  BackendSession,
  ExecuteOutcome,
  ExecuteRequest,
  HostBridge,
  SandboxBackend,
  SessionRequest,
  ToolDescriptor,
} from '../spec/v1/backend.js'
export type { BackendFactory } from './backend-factory.js'
export { unmetCapabilities } from './capability-requirement.js'
export type { CapabilityRequirement } from './capability-requirement.js'
export type { GuestHostFunctions, GuestRuntime, GuestSetup } from '../guest/protocol.js'
export { GUEST_FILENAME, GUEST_RUNTIME_SOURCE } from '../guest/runtime-source.js'
export { createGuestHost, outcomeFromDone, toolErrorPayload } from '../host/guest-host.js'
export type { GuestDone, GuestEngine, GuestHost } from '../host/guest-host.js'
export { createHostSwitch } from '../host/host-switch.js'
export type { HostSwitch } from '../host/host-switch.js'
export { decodeValue, encodeValue } from '../wire.js'
