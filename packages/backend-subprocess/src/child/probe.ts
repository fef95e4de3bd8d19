/** What a child in probe mode finds out about the process it runs in. */
import fs from 'node:fs'
import net from 'node:net'
import type { ProbeReport } from '../messages.js'

const CONNECT_WAIT_MS = 2_000

export async function probeReport(): Promise<ProbeReport> {
  const versions = process.versions as Record<string, string | undefined>
  const foreignRuntime = versions.bun !== undefined ? 'bun' : 'Deno' in globalThis ? 'deno' : null
  return {
    node: versions.node ?? 'unknown',
    foreignRuntime,
    permissionModel: permissionModelDenies(),
    network: await networkStatus(),
    pid: process.pid,
    uid: typeof process.getuid === 'function' ? process.getuid() : -1,
  }
}

function permissionModelDenies(): boolean {
  const permission = (process as { permission?: { has(scope: string, reference?: string): boolean } }).permission
  if (permission === undefined || permission.has('fs.read', '/') !== false) return false
  try {
    fs.readdirSync('/')
    return false
  } catch (error) {
    return (error as { code?: unknown }).code === 'ERR_ACCESS_DENIED'
  }
}

/** The error code of a TCP connect to loopback, or CONNECTED: only a denial means no network. */
function networkStatus(): Promise<string> {
  return new Promise((resolve) => {
    let socket: net.Socket | undefined
    const timer = setTimeout(() => {
      socket?.destroy()
      resolve('TIMEOUT')
    }, CONNECT_WAIT_MS)
    const end = (status: string) => {
      clearTimeout(timer)
      socket?.destroy()
      resolve(status)
    }
    try {
      socket = net.connect({ host: '127.0.0.1', port: 9 })
    } catch (error) {
      end(errorCode(error))
      return
    }
    socket.once('connect', () => end('CONNECTED'))
    socket.once('error', (error) => end(errorCode(error)))
  })
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code
  return typeof code === 'string' ? code : 'UNKNOWN_ERROR'
}
