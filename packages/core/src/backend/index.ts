/**
 * `@cordon/core/backend`: everything a backend author needs, nothing a user needs.
 * The user API (createSandbox, results, errors, limits) is the root entry, `@cordon/core`.
 */
// The error class a backend throws (the same class as the root entry's), so that code running
// where only backend code is needed (a worker's bundle) need not load the user API.
export { SandboxError } from '../errors.js'
export { BOOLEAN_CAPABILITIES, ISOLATION_KINDS } from './v1/capabilities.js'
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
export { RUNTIME_SCRIPT_PREFIX } from './v1/inspector-hooks.js'
export type { EngineInspector, EngineInspectorSession, InspectorHooks } from './v1/inspector-hooks.js'
export type { BackendFactory } from './backend-factory.js'
export { unmetCapabilities } from './capability-requirement.js'
export type { CapabilityRequirement } from './capability-requirement.js'
export type { GuestRuntime, GuestSetup, RelayFunctions } from '../guest/protocol.js'
export { GUEST_FILENAME, GUEST_RUNTIME_SOURCE } from '../guest/runtime-source.js'
export { PRIMORDIALS_SOURCE, capturePrimordials } from '../guest/primordials.js'
export type { Primordials } from '../guest/primordials.js'
export { createGuestRelay, outcomeFromDone, syncToolReply, toolErrorPayload } from './guest-relay.js'
export type { GuestDone, GuestEngine, GuestRelay } from './guest-relay.js'
export { createRelaySwitch } from './relay-switch.js'
export { maxLogBatchChars, unpackLogEntries } from './log-entries.js'
export {
  BACKEND_STOP_GRACE_MS,
  RUN_ENDED_REPLY,
  RunStop,
  abortedError,
  pollStop,
  setStopPoll,
  stopError,
  timeoutError,
  watchStop,
} from './run-stop.js'
export { CHANNEL_VERSION, parseOrder, parseReport } from './channel/channel-protocol.js'
export type { Order, OrderCaps, Report, ReportCaps, RunOrder, SyncReply } from './channel/channel-protocol.js'
export { ChannelClient } from './channel/channel-client.js'
export type { ChannelBackendSession, ChannelClientOptions, NearTransport } from './channel/channel-client.js'
export { ChannelPool } from './channel/channel-pool.js'
export type { ChannelPoolOptions, FarSideEvents, FarSideLink } from './channel/channel-pool.js'
export {
  IDLE_CLOSE_CODE,
  PARTITION_HEADER,
  REFUSAL_HEADER,
  REMOTE_CHANNEL_PATH,
  REMOTE_INFO_PATH,
  RUN_ID_HEADER,
  parseServerInfo,
} from './channel/remote-protocol.js'
export type { RemoteRefusal, ServerInfo } from './channel/remote-protocol.js'
export { serveBackend } from './channel/serve-backend.js'
export type { FarTransport, ServeOptions } from './channel/serve-backend.js'
export { RUN_SLOTS, SYNC_REPLY_INDEX, createStopFlags, stopRaised, waitForSyncReply, wakeSyncWaiter } from './channel/stop-flags.js'
export type { RelaySwitch } from './relay-switch.js'
export { decodeValue, encodeValue } from '../wire.js'
export { describeOptionValue } from '../limits.js'
