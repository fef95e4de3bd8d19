import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, runJavaScript, runServer, writeConfig, type Connection } from './helpers.js'

/** A loopback server that answers every request with what reached it. */
const seen: { path: string; headers: IncomingHttpHeaders }[] = []
const http = createServer((request, response) => {
  seen.push({ path: request.url ?? '', headers: request.headers })
  response.setHeader('content-type', 'application/json')
  response.end(JSON.stringify({ path: request.url, authorized: request.headers.authorization === 'Bearer tok-123' }))
})
let origin = ''
let server: Connection | undefined

beforeAll(async () => {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  const config = writeConfig(
    {
      backend: 'quickjs',
      fetch: {
        allow: [origin],
        allowPrivateAddresses: true,
        secrets: { API_TOKEN: { value: '${TEST_API_TOKEN}', hosts: ['127.0.0.1'] } },
      },
    },
    'fetch-config.json',
  )
  server = await connect(config, 'stdio', { env: { TEST_API_TOKEN: 'tok-123' } })
})
afterAll(async () => {
  await server?.close()
  await new Promise<void>((resolve) => http.close(() => resolve()))
})

describe('config "fetch"', () => {
  it("gives programs a fetch to the allowed origins, with the secret's value from the environment sent for its name", async () => {
    const code = `const r = await fetch('${origin}/items', { headers: { Authorization: 'Bearer API_TOKEN' } })
return { status: r.status, body: await r.json(), tokenInGuest: typeof API_TOKEN }`
    const result = await runJavaScript(server!.client, code)
    expect(result.isError).toBeFalsy()
    expect(JSON.parse(result.texts[0]!)).toEqual({ status: 200, body: { path: '/items', authorized: true }, tokenInGuest: 'undefined' })
    expect(seen.at(-1)?.headers.authorization).toBe('Bearer tok-123')
    expect(result.texts.join('\n')).not.toContain('tok-123')
  })

  it('refuses origins that are not allowed, inside the program', async () => {
    const result = await runJavaScript(
      server!.client,
      "await fetch('https://example.com/').then(() => 'reached', (e) => e.name + ': ' + e.message)",
    )
    expect(result.texts[0]).toContain('TypeError')
    expect(result.texts[0]).toContain('not allowed by fetch.allow')
  })

  it("run_javascript's description names the origins the program can fetch", async () => {
    const { tools } = await server!.client.listTools()
    const run = tools.find((tool) => tool.name === 'run_javascript')!
    expect(run.description).toContain(`\`fetch(url, init)\` (with Headers, Request, Response) reaches only these origins: ${origin}`)
  })

  it("an origin core does not accept stops the server at startup, with core's reason", async () => {
    const exit = await runServer(['--config', writeConfig({ backend: 'quickjs', fetch: { allow: ['file:///etc'] } }, 'fetch-bad.json')])
    expect(exit.code).toBe(1)
    expect(exit.stderr).toContain('the config\'s "fetch" are not valid')
    expect(exit.stderr).toContain('is not an http(s) origin')
  })

  it('a secret whose variable is not set stops the server at startup, naming it', async () => {
    const config = writeConfig(
      {
        backend: 'quickjs',
        fetch: { allow: ['https://api.example.com'], secrets: { API_TOKEN: { value: '${NOT_SET_ANYWHERE}', hosts: ['api.example.com'] } } },
      },
      'fetch-unset.json',
    )
    const exit = await runServer(['--config', config])
    expect(exit.code).toBe(1)
    expect(exit.stderr).toContain('NOT_SET_ANYWHERE')
  })
})
