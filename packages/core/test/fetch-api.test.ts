/** The guarded fetch through the public API: sandbox defaults, sessions, and the guest's fetch API objects. */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSandbox, isSandboxError } from '../src/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

let server: Server
let origin = ''
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/bytes')
      return void response.end(Buffer.from([0xef, 0xbb, 0xbf, 0x61, 0xff, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80]))
    response.setHeader('set-cookie', ['a=1', 'b=2'])
    response.end(request.headers['x-q'] ?? 'none')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('the fetch option', () => {
  it('comes from the sandbox defaults, and a run may replace it or turn it off (false)', async () => {
    const sandbox = createSandbox(createVmBackend(), { fetch: { allow: [origin], allowPrivateAddresses: true } })
    try {
      const ok = await sandbox.run(`(await fetch(${JSON.stringify(origin)}, { headers: { 'x-q': 'hi' } })).text()`)
      expect(ok).toMatchObject({ ok: true, value: 'hi' })
      const other = await sandbox.run(`fetch(${JSON.stringify(origin)}).then(() => 'sent', (e) => e.message)`, {
        fetch: { allow: ['https://api.example.com'] },
      })
      expect(other).toMatchObject({ ok: true, value: expect.stringMatching(/not allowed/) })
      const off = await sandbox.run('typeof fetch', { fetch: false })
      expect(off).toMatchObject({ ok: true, value: 'undefined' })
    } finally {
      await sandbox.dispose()
    }
  })

  it('is refused in sessions, with INVALID_OPTIONS', async () => {
    const sandbox = createSandbox(createVmBackend())
    try {
      const fetch = { allow: [origin] }
      await expect(sandbox.createSession({ fetch } as never)).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
      const session = await sandbox.createSession()
      await expect(session.run('1', { fetch } as never)).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
      await session.dispose()
    } finally {
      await sandbox.dispose()
    }
  })
})

describe("the guest's fetch API", () => {
  const sandbox = createSandbox(createVmBackend())
  afterAll(() => sandbox.dispose())
  const fetch = () => ({ allow: [origin], allowPrivateAddresses: true })

  it('decodes UTF-8 as WHATWG does (BOM dropped, invalid bytes replaced) and keeps set-cookie apart', async () => {
    const code = `const r = await fetch(${JSON.stringify(origin + '/bytes')})
const copy = r.clone()
const plain = await fetch(${JSON.stringify(origin)})
return [await r.text(), (await copy.bytes()).length, [...plain.headers].filter(([n]) => n === 'set-cookie')]`
    const result = await sandbox.run(code, { fetch: fetch() })
    expect(result).toMatchObject({
      ok: true,
      value: [
        'a\ufffd€😀',
        12,
        [
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
        ],
      ],
    })
  })

  it('builds Responses and Headers locally, and refuses bad ones with the WHATWG errors', async () => {
    const code = `const r = new Response('{"a":1}', { status: 201, headers: { 'X-A': 'b' } })
const errors = []
for (const f of [() => new Headers({ 'a b': 1 }), () => new Response('', { status: 99 }), () => new Request('http://x', { method: 'GET', body: 'x' })]) {
  try { f() } catch (e) { errors.push(e.constructor.name) }
}
return [r.status, r.ok, r.headers.get('x-a'), r.headers.get('content-type'), await r.json(), errors]`
    const result = await sandbox.run(code, { fetch: fetch() })
    expect(result).toMatchObject({
      ok: true,
      value: [201, true, 'b', 'text/plain;charset=UTF-8', { a: 1 }, ['TypeError', 'RangeError', 'TypeError']],
    })
  })
})
