import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { Implementation, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { UpstreamConfig } from './config-schema.js'
import { listAllTools } from './list-tools.js'
import { log } from './log.js'
import { relayStderr } from './stderr-relay.js'
import { launchParameters } from './upstream-launch.js'

export type UpstreamCallResult = Awaited<ReturnType<Client['callTool']>>

/** Whether an upstream can be called now; when not, why (for the tool description). */
export type UpstreamStatus = { available: true } | { available: false; reason: string }

/** A connected upstream MCP server and the tools it listed at startup. */
export interface Upstream {
  /** The key in the config's `mcpServers`: the namespace in the sandbox. */
  readonly name: string
  /** How cordon-mcp reaches it. */
  readonly transport: 'stdio' | 'streamable-http' | 'sse'
  /** What the server said it is during the handshake. */
  readonly info: Implementation | undefined
  readonly tools: readonly Tool[]
  /** The upstream's process id, while it runs. */
  readonly pid: number | null
  callTool(tool: string, args: unknown, options: { signal: AbortSignal; timeoutMs: number }): Promise<UpstreamCallResult>
  status(): UpstreamStatus
  /** Calls `listener` whenever status() changes; returns the function that stops it. */
  onStatusChange(listener: () => void): () => void
  close(): Promise<void>
}

/** The listeners of one upstream's status changes. */
export function statusListeners(): { add(listener: () => void): () => void; notify(): void } {
  const listeners = new Set<() => void>()
  return {
    add(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
    notify() {
      for (const listener of [...listeners]) listener()
    },
  }
}

/** An upstream that could not be started, connected or listed. */
export class UpstreamStartError extends Error {
  override readonly name = 'UpstreamStartError'
  constructor(
    readonly upstream: string,
    readonly reason: string,
    /** A remote server that could not be reached: trying again later may work (a bad url or an unset ${VAR} would not). */
    readonly retryable = false,
  ) {
    super(`upstream server "${upstream}" failed to start: ${reason}`)
  }
}

export interface StartUpstreamOptions {
  configDirectory: string
  /** Our own version, sent as the client's identity. */
  version: string
  env?: NodeJS.ProcessEnv
}

/** Starts the process, runs the MCP handshake and lists every tool, all under `startupTimeoutMs`. */
export async function startUpstream(name: string, config: UpstreamConfig, options: StartUpstreamOptions): Promise<Upstream> {
  let parameters
  try {
    parameters = launchParameters(config, options.configDirectory, options.env ?? process.env)
  } catch (error) {
    throw new UpstreamStartError(name, (error as Error).message)
  }
  const transport = new StdioClientTransport(parameters)
  const stderr = relayStderr(transport.stderr, name)
  const client = new Client({ name: 'cordon-mcp', version: options.version })
  let ready = false
  let closing = false
  let exited = false
  client.onerror = (error) => {
    if (ready && !closing) log(`upstream server "${name}": ${error.message}`)
  }
  const listeners = statusListeners()
  client.onclose = () => {
    exited = true
    if (ready && !closing) log(`upstream server "${name}" has exited; calls to its tools now fail (restart cordon-mcp to reconnect)`)
    listeners.notify()
  }

  const deadline = AbortSignal.timeout(config.startupTimeoutMs)
  const startup = { signal: deadline, timeout: config.startupTimeoutMs }
  let tools: Tool[]
  try {
    await client.connect(transport, startup)
    tools = await listAllTools(client, startup)
  } catch (error) {
    closing = true
    await client.close().catch(() => undefined)
    // The process is gone; its last stderr lines may still be on their way through the pipe.
    await stderr.ended(500)
    throw new UpstreamStartError(
      name,
      startFailureReason(error, parameters.command, config.startupTimeoutMs, deadline.aborted, stderr.tail()),
    )
  }

  ready = true
  return {
    name,
    transport: 'stdio',
    info: client.getServerVersion(),
    tools,
    get pid() {
      return transport.pid
    },
    async callTool(tool, args, { signal, timeoutMs }) {
      if (exited) throw new Error(`the upstream server "${name}" has exited; restart cordon-mcp to reconnect it`)
      // The sandbox's deadline aborts `signal`; the SDK then tells the upstream to cancel.
      // Its own default timeout (60 s) must not end a call the run still allows.
      return client.callTool({ name: tool, arguments: args as Record<string, unknown> | undefined }, undefined, {
        signal,
        timeout: Math.min(timeoutMs, config.callTimeoutMs ?? Number.POSITIVE_INFINITY),
      })
    },
    status: () =>
      exited && !closing ? { available: false, reason: 'its process exited; restart cordon-mcp to start it again' } : { available: true },
    onStatusChange: (listener) => listeners.add(listener),
    async close() {
      closing = true
      // Ends the upstream's stdin, then SIGTERM, then SIGKILL if it still runs (the SDK's escalation).
      await client.close()
    },
  }
}

function startFailureReason(error: unknown, command: string, timeoutMs: number, timedOut: boolean, stderrTail: string): string {
  const code = (error as NodeJS.ErrnoException).code
  let reason: string
  if (code === 'ENOENT') reason = `the command "${command}" was not found (is it installed and on PATH?)`
  else if (code === 'EACCES') reason = `the command "${command}" is not executable`
  else if (timedOut) reason = `it did not finish the MCP handshake and list its tools within ${timeoutMs} ms (startupTimeoutMs)`
  else if (/Connection closed/i.test(String(error))) reason = 'it exited before it finished the MCP handshake'
  else reason = error instanceof Error ? error.message : String(error)
  // Stack frames and blank lines push the one line that explains it out of view.
  const lastLines = stderrTail
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s+at /.test(line))
    .slice(-8)
  return lastLines.length === 0 ? reason : `${reason}; its stderr ended with:\n  ${lastLines.join('\n  ')}`
}
