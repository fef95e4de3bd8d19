/**
 * What a `cordon run` client and the daemon say to each other over the socket: one JSON
 * document per line. The client first says hello with its CORDON_* variables (the daemon serves
 * only clients whose environment would choose and limit as its own does), then sends one run
 * and prints what comes back until the exit code.
 */
import type { OutputLine } from '../format-result.js'
import type { Program } from '../read-program.js'

export const PROTOCOL = 1
/** Longer lines end the connection: a program, or a line of output, this large is not one. */
export const MAX_LINE_CHARS = 256 * 1024 * 1024

/** The flags of `cordon run` the daemon serves; any other flag runs in the CLI's own process. */
export interface DaemonRunFlags {
  json?: boolean
  timeout?: number
  memory?: number
  maxOutput?: number
  stats?: boolean
}

export type ClientMessage =
  | { type: 'hello'; protocol: number; env: Record<string, string> }
  | { type: 'run'; program: Program; flags: DaemonRunFlags; color: { stdout: boolean; stderr: boolean } }
  | { type: 'abort'; signal: 'SIGINT' | 'SIGTERM' }
  | { type: 'status' }
  | { type: 'stop' }

export interface DaemonStatus {
  pid: number
  startedAt: string
  runs: number
  backend: string
  idleSeconds: number
  socket: string
}

export type DaemonMessage =
  | { type: 'ready' }
  | { type: 'refused'; reason: string }
  | ({ type: 'line' } & OutputLine)
  | { type: 'exit'; code: number }
  | ({ type: 'status' } & DaemonStatus)
  | { type: 'stopping' }

/** The variables that change what a sandbox does (CORDON_BACKEND, CORDON_DISABLE, limits…), sorted. */
export function cordonEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const picked: Record<string, string> = {}
  for (const name of Object.keys(env).sort()) {
    const value = env[name]
    if (name.startsWith('CORDON_') && name !== 'CORDON_NO_DAEMON' && value !== undefined) picked[name] = value
  }
  return picked
}

/** Feeds `onMessage` each line's JSON as it arrives; `onBad` once for a line that is too long or not JSON. */
export function messageReader(onMessage: (message: unknown) => void, onBad: () => void): (chunk: string) => void {
  let pending = ''
  let broken = false
  return (chunk) => {
    if (broken) return
    pending += chunk
    let newline: number
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline)
      pending = pending.slice(newline + 1)
      let message: unknown
      try {
        message = JSON.parse(line)
      } catch {
        broken = true
        return onBad()
      }
      onMessage(message)
    }
    if (pending.length > MAX_LINE_CHARS) {
      broken = true
      onBad()
    }
  }
}

export function encode(message: ClientMessage | DaemonMessage): string {
  return `${JSON.stringify(message)}\n`
}
