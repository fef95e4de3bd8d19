export { startServer } from './start-server.js'
export type { CordonServer } from './start-server.js'
export type { LogEntry, ServerOptions } from './server-options.js'
export { DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_IDLE_CONNECTION_MS, DEFAULT_MAX_LIMITS, DEFAULT_MAX_MESSAGE_BYTES } from './server-options.js'
