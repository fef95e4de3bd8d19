export { createRemoteBackend } from './remote-backend.js'
export type { RemoteBackend, RemoteServerInfo } from './remote-backend.js'
export type { RemoteBackendOptions } from './remote-options.js'
export { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_KEEP_ALIVE_MS, DEFAULT_MAX_MESSAGE_BYTES } from './remote-options.js'
