import { randomUUID } from 'node:crypto'
import type { RunError } from '@cordon/core'
import {
  IDLE_CLOSE_CODE,
  stopError,
  type BackendCapabilities,
  type BackendSession,
  type ChannelBackendSession,
  type ExecuteOutcome,
  type ExecuteRequest,
  type SandboxBackend,
  type ServerInfo,
  type SessionRequest,
} from '@cordon/core/backend'
import { SandboxError } from '@cordon/core'
import { KeptConnections } from './kept-connections.js'
import { checkRemoteOptions, type RemoteBackendOptions, type RemoteSettings } from './remote-options.js'
import { fetchServerInfo } from './server-info.js'
import { connectChannel, type SocketChannel } from './socket-channel.js'

/** What the server behind the URL runs programs on (from its `/v1/info`). */
export type RemoteServerInfo = Readonly<Pick<ServerInfo, 'backend' | 'maxLimits' | 'maxMessageBytes'>>

export interface RemoteBackend extends SandboxBackend {
  readonly server: RemoteServerInfo
}

/**
 * A backend whose engines are `cordon-server`s elsewhere: each run (and each session) is one
 * WebSocket to the URL, so any load balancer spreads them; tools and logs come back over it and
 * run here. Asks the server for its capabilities first, so it is async. Rejects with
 * INVALID_OPTIONS for bad options and BACKEND_UNAVAILABLE when no server answers.
 */
export async function createRemoteBackend(options: RemoteBackendOptions): Promise<RemoteBackend> {
  const settings = checkRemoteOptions(options)
  const info = await fetchServerInfo(settings)
  return new Remote(settings, info)
}

class Remote implements RemoteBackend {
  readonly specificationVersion = 'v1'
  readonly name = 'remote'
  readonly capabilities: BackendCapabilities
  readonly server: RemoteServerInfo
  private readonly open = new Set<SocketChannel>()
  private readonly kept: KeptConnections
  private disposed = false

  constructor(
    private readonly settings: RemoteSettings,
    info: ServerInfo,
  ) {
    this.kept = new KeptConnections(settings.keepAliveMs)
    this.capabilities = Object.freeze({ ...info.capabilities })
    this.server = Object.freeze({
      backend: info.backend,
      maxLimits: Object.freeze({ ...info.maxLimits }),
      maxMessageBytes: info.maxMessageBytes,
    })
  }

  async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    const runId = randomUUID()
    const refused = this.refusal() ?? this.overCaps(request.limits.timeoutMs, request.limits.memoryMb)
    if (refused !== undefined) return { ok: false, error: refused }
    const outcome = await this.runOn(this.kept.take(request.partition), request, runId)
    return { ...outcome, stats: { ...outcome.stats, runId } }
  }

  /**
   * Runs `request` on a kept connection, or a new one. On a kept one, the server may have closed
   * it as idle, or found no place for the run, just as the run was sent: either way the server
   * started nothing, so the run goes once more, on a new connection.
   */
  private async runOn(kept: SocketChannel | undefined, request: ExecuteRequest, runId: string): Promise<ExecuteOutcome> {
    let channel = kept
    if (channel === undefined) {
      const connected = await connectChannel(this.settings, {
        runId,
        partition: request.partition,
        deadline: request.deadline,
        signal: request.signal,
      })
      // The attempts end at the deadline when it comes first: a run that could not start in its
      // time ends with its own stop error (TIMEOUT), as on the other backends, whatever held it up.
      const stopped = request.signal.aborted || Date.now() >= request.deadline
      if (!('client' in connected)) return { ok: false, error: stopped ? stopError(request) : connected }
      channel = connected
    }
    if (this.disposed) {
      channel.close()
      return { ok: false, error: disposedError() }
    }
    this.open.add(channel)
    let outcome: ExecuteOutcome
    try {
      outcome = await channel.client.execute(request, 0, runId)
    } finally {
      this.open.delete(channel)
    }
    if (kept !== undefined && !outcome.ok && !request.signal.aborted && neverStarted(outcome.error, channel)) {
      channel.close()
      return this.runOn(undefined, request, runId)
    }
    if (this.disposed) channel.close()
    else this.kept.keep(channel, request.partition)
    return outcome
  }

  async openSession(request: SessionRequest): Promise<BackendSession> {
    const refused = this.refusal() ?? this.overCaps(1, request.memoryMb)
    if (refused !== undefined) throw new SandboxError(refused.code, refused.message)
    const runId = randomUUID()
    const channel = await connectChannel(this.settings, {
      runId,
      partition: request.partition,
      deadline: Date.now() + this.settings.connectTimeoutMs,
    })
    if (!('client' in channel)) throw new SandboxError(channel.code, channel.message)
    this.open.add(channel)
    let session: ChannelBackendSession
    try {
      session = await channel.client.openSession(request.memoryMb)
    } catch (error) {
      this.open.delete(channel)
      channel.close()
      throw error
    }
    return new RemoteSession(session, () => {
      this.open.delete(channel)
      channel.close()
    })
  }

  dispose(): Promise<void> {
    this.disposed = true
    for (const channel of this.open) {
      channel.client.fail(disposedError())
      channel.close()
    }
    this.open.clear()
    this.kept.closeAll()
    return Promise.resolve()
  }

  private refusal(): RunError | undefined {
    return this.disposed ? disposedError() : undefined
  }

  /** Limits the server would refuse anyway: said here, without a round trip. */
  private overCaps(timeoutMs: number, memoryMb: number): RunError | undefined {
    const { maxLimits } = this.server
    if (timeoutMs > maxLimits.timeoutMs)
      return { code: 'INVALID_OPTIONS', message: `timeoutMs ${timeoutMs} is over the cordon server's cap of ${maxLimits.timeoutMs}` }
    if (memoryMb > maxLimits.memoryMb)
      return { code: 'INVALID_OPTIONS', message: `memoryMb ${memoryMb} is over the cordon server's cap of ${maxLimits.memoryMb}` }
    return undefined
  }
}

/** What a server says of a run it never started: no place for it, or closed as idle under it. */
function neverStarted(error: RunError, channel: SocketChannel): boolean {
  return error.code === 'BUSY' || (error.code === 'BACKEND_CRASHED' && channel.closeCode === IDLE_CLOSE_CODE)
}

function disposedError(): RunError {
  return { code: 'BACKEND_UNAVAILABLE', message: 'the remote backend was disposed' }
}

/** A session on a server: its connection closes with it. Each run is named in the server's logs by its `stats.runId`. */
class RemoteSession implements BackendSession {
  constructor(
    private readonly session: ChannelBackendSession,
    private readonly closeConnection: () => void,
  ) {}

  get alive(): boolean {
    return this.session.alive
  }

  async execute(request: ExecuteRequest): Promise<ExecuteOutcome> {
    const runId = randomUUID()
    const outcome = await this.session.execute(request, runId)
    return { ...outcome, stats: { ...outcome.stats, runId } }
  }

  memoryUsage(): Promise<number> {
    return this.session.memoryUsage()
  }

  async dispose(): Promise<void> {
    try {
      await this.session.dispose()
    } finally {
      this.closeConnection()
    }
  }
}
