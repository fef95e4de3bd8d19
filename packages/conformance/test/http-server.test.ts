/**
 * The fetch group's server decides whether the host let go of a request: it must not pass while a
 * connection to it is still open, whether or not the request reached its handler.
 */
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../src/harness/http-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function open(port: number, request?: string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  if (request !== undefined) socket.write(request)
  return socket
}

const SLOW = 'GET /slow HTTP/1.1\r\nhost: test\r\n\r\n'

describe('cutOffWithin', () => {
  it('passes at once when nothing was sent', async () => {
    server = await startTestServer()
    await server.cutOffWithin('/slow', 100)
  })

  it('fails while a request that reached the handler is still answered, passes once its connection closes', async () => {
    server = await startTestServer()
    const socket = await open(server.port, SLOW)
    await new Promise<void>((resolve) => socket.once('data', () => resolve()))
    await expect(server.cutOffWithin('/slow', 200)).rejects.toThrow('did not see the connection for /slow closed')
    const cut = server.cutOffWithin('/slow', 5_000)
    socket.destroy()
    await cut
    expect(server.cutOff).toEqual(['/slow'])
  })

  it('fails while a connection is open whose request has not reached the handler, passes once it closes', async () => {
    server = await startTestServer()
    const socket = await open(server.port, 'GET /slow HTTP/1.1\r\n')
    await expect(server.cutOffWithin('/slow', 200)).rejects.toThrow('did not see the connection for /slow closed')
    const cut = server.cutOffWithin('/slow', 5_000)
    socket.destroy()
    await cut
    expect(server.seen).toEqual([])
  })
})
