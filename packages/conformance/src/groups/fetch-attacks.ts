/**
 * Attacks on the fetch guard: origins and schemes outside `allow`, loopback in every spelling,
 * DNS answers that point inside (rebinding), redirects to private addresses, header injection,
 * and a secret's placeholder sent to a host it is not bound to. In each, the request is refused
 * with a TypeError and the server sees nothing it should not.
 */
import type { FetchOptions } from '@cordon/core'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { withTestServer } from '../harness/http-server.js'
import { UNTRUSTED_TLS } from '../harness/untrusted-tls.js'
import { runOk } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'
import { allowServer, expectRefused, guestRefusal } from '../harness/fetch-run.js'

const fetchOf = (url: string, init = '') => `await fetch(${JSON.stringify(url)}${init === '' ? '' : `, ${init}`})`

export const fetchAttackChecks: ConformanceCheck[] = [
  {
    group: 'fetch',
    name: 'fetch attack: origins not in allow and schemes other than http(s) are refused, and nothing is sent',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const fetch = allowServer(server)
        const refusals: [string, string][] = [
          [`http://127.0.0.1:${server.port + 1}/echo`, 'not allowed'],
          [`https://127.0.0.1:${server.port}/echo`, 'not allowed'],
          [`http://user:pw@127.0.0.1:${server.port}/echo`, 'credentials'],
          ['file:///etc/passwd', 'scheme'],
          ['data:text/plain,hello', 'scheme'],
          ['ftp://127.0.0.1/', 'scheme'],
          ['/echo', 'not a valid absolute URL'],
        ]
        for (const [url, part] of refusals) expectRefused(await guestRefusal(sandbox, fetchOf(url), fetch), part, url)
        if (server.seen.length !== 0) throw new Error(`the server saw ${server.seen.length} refused requests`)
      })
    },
  },
  {
    group: 'fetch',
    name: 'fetch attack: loopback in every spelling is refused without allowPrivateAddresses; unspecified and metadata addresses even with it',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const { port } = server
        // Each allow entry names the spelling itself; the URL parser makes most of them 127.0.0.1.
        const spellings = [
          `127.0.0.1:${port}`,
          `2130706433:${port}`,
          `0x7f.1:${port}`,
          `0177.0.0.1:${port}`,
          `127.1:${port}`,
          `[::1]:${port}`,
          `[::ffff:127.0.0.1]:${port}`,
          `127.0.0.1.:${port}`,
        ]
        for (const host of spellings) {
          const fetch: FetchOptions = { allow: [`http://${host}`] }
          expectRefused(await guestRefusal(sandbox, fetchOf(`http://${host}/echo`), fetch), 'address', host)
        }
        for (const host of [`0.0.0.0:${port}`, `[::]:${port}`, '169.254.169.254', '[fd00:ec2::254]', '[::ffff:169.254.169.254]']) {
          const fetch: FetchOptions = { allow: [`http://${host}`], allowPrivateAddresses: true }
          expectRefused(
            await guestRefusal(sandbox, fetchOf(`http://${host}/latest/meta-data/`), fetch),
            'address',
            `${host} with allowPrivateAddresses`,
          )
        }
        if (server.seen.length !== 0) throw new Error(`the server saw ${server.seen.length} refused requests`)
      })
    },
  },
  {
    group: 'fetch',
    name: 'fetch attack: a host name that resolves inside (DNS rebinding) is refused, even with allowPrivateAddresses',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const { port } = server
        const answers: Record<string, string[]> = {
          'rebind.test': ['127.0.0.1'],
          'mixed.test': ['93.184.215.14', '127.0.0.1'],
          'mapped.test': ['::ffff:7f00:1'],
          'private.test': ['10.0.0.1'],
        }
        for (const [name, addresses] of Object.entries(answers)) {
          const fetch: FetchOptions = { allow: [`http://${name}:${port}`], allowPrivateAddresses: true, lookup: () => addresses }
          expectRefused(await guestRefusal(sandbox, fetchOf(`http://${name}:${port}/echo`), fetch), 'refused address', name)
        }
        // The system resolver's own answer for localhost is loopback: refused the same way.
        const local: FetchOptions = { allow: [`http://localhost:${port}`, `http://localhost.:${port}`], allowPrivateAddresses: true }
        expectRefused(await guestRefusal(sandbox, fetchOf(`http://localhost:${port}/echo`), local), 'refused address', 'localhost')
        expectRefused(await guestRefusal(sandbox, fetchOf(`http://localhost.:${port}/echo`), local), 'refused address', 'localhost.')
        if (server.seen.length !== 0) throw new Error(`the server saw ${server.seen.length} refused requests`)
      })
    },
  },
  {
    group: 'fetch',
    name: 'fetch attack: every redirect hop is checked (allowed origin, allowed address, count); redirect "error" and "manual" work',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const { origin, port } = server
        const to = (target: string, status = 302) => `${origin}/redirect?status=${status}&to=${encodeURIComponent(target)}`
        const fetch: FetchOptions = {
          allow: [origin, `http://rebind.test:${port}`, `http://localhost:${port}`],
          allowPrivateAddresses: true,
          lookup: () => ['127.0.0.1'],
          maxRedirects: 2,
        }
        const followed = await runOk(
          sandbox,
          `const r = ${fetchOf(to('/echo?after=1', 307), "{ method: 'POST', body: 'b' }")}\nconst j = await r.json()\nreturn [r.status, r.redirected, r.url, j.method, j.body]`,
          { fetch },
        )
        expectSameValue(followed, [200, true, `${origin}/echo?after=1`, 'POST', 'b'], 'a followed 307')
        const cases: [string, string][] = [
          [to(`http://rebind.test:${port}/echo`), 'refused address'],
          [to(`http://localhost:${port}/echo`), 'refused address'],
          [to(`http://[::1]:${port}/echo`), 'not allowed'],
          [to('http://169.254.169.254/latest/meta-data/'), 'not allowed'],
          [to('file:///etc/passwd'), 'scheme'],
          [to(to(to('/echo'))), 'too many redirects'],
        ]
        for (const [url, part] of cases) expectRefused(await guestRefusal(sandbox, fetchOf(url), fetch), part, url)
        expectRefused(await guestRefusal(sandbox, fetchOf(to('/echo'), "{ redirect: 'error' }"), fetch), 'redirect', 'redirect: "error"')
        const manual = await runOk(
          sandbox,
          `const r = ${fetchOf(to('/echo', 301), "{ redirect: 'manual' }")}\nreturn [r.status, r.headers.get('location')]`,
          { fetch },
        )
        expectSameValue(manual, [301, '/echo'], 'redirect: "manual"')
        const reachedEcho = server.seen.filter((request) => request.path.startsWith('/echo')).length
        if (reachedEcho !== 1) throw new Error(`only the followed 307 may reach /echo, saw ${reachedEcho} requests there`)
      })
    },
  },
  {
    group: 'fetch',
    name: 'fetch attack: CR or LF in a header, invalid header names and host-owned headers are refused',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const fetch = allowServer(server)
        const url = `${server.origin}/echo`
        const inits = [
          "{ headers: { 'x-a': 'v\\r\\nInjected: 1' } }",
          "{ headers: { 'x-a': 'v\\nx-b: 2' } }",
          "{ headers: [['x-a\\r\\nInjected', 'v']] }",
          "{ headers: { 'bad name': 'v' } }",
          "{ headers: { Host: 'internal.example' } }",
          "{ headers: { 'Transfer-Encoding': 'chunked' } }",
          "{ method: 'CONNECT' }",
          "{ method: 'GET', body: 'x' }",
        ]
        for (const init of inits) {
          const caught = await guestRefusal(sandbox, fetchOf(url, init), fetch)
          if (caught[0] !== 'TypeError') throw new Error(`fetch with ${init} should reject with a TypeError, got ${JSON.stringify(caught)}`)
        }
        if (server.seen.length !== 0) throw new Error(`the server saw ${server.seen.length} refused requests`)
      })
    },
  },
  {
    group: 'fetch',
    name: 'fetch attack: a secret reaches only its bound host; the guest, the result and an echo never hold its value; its placeholder to an unbound host is refused',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const value = 'sk-live-7f3a9c21e0d4b865'
        const unbound = `http://127.0.0.2:${server.port}`
        const fetch: FetchOptions = {
          allow: [server.origin, unbound],
          allowPrivateAddresses: true,
          secrets: { API_KEY: { value, hosts: ['127.0.0.1'] } },
        }
        const code = `const r = await fetch(${JSON.stringify(`${server.origin}/echo`)}, { headers: { Authorization: 'Bearer API_KEY' } })
const echoed = await r.json()
console.log('echo', echoed.headers.authorization, r.headers.get('x-echo-authorization'))
let unbound = 'sent'
try { await fetch(${JSON.stringify(`${unbound}/echo`)}, { headers: { 'x-api-key': 'API_KEY' } }) } catch (e) { unbound = e instanceof TypeError ? e.message : 'other' }
let hop = 'sent'
const away = ${JSON.stringify(`${server.origin}/redirect?to=${encodeURIComponent(`${unbound}/echo`)}`)}
try { await fetch(away, { headers: { 'x-api-key': 'API_KEY' } }) } catch (e) { hop = e instanceof TypeError ? e.message : 'other' }
return { seen: echoed.headers.authorization, header: r.headers.get('x-echo-authorization'), named: typeof API_KEY, unbound, hop }`
        const events: unknown[] = []
        const result = await sandbox.run(code, { fetch, includeToolValuesInEvents: true, onEvent: (event) => void events.push(event) })
        if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`)
        if (JSON.stringify(result).includes(value)) throw new Error('the secret value appears in the RunResult')
        if (JSON.stringify(events).includes(value)) throw new Error('the secret value appears in the run events')
        const got = result.value as Record<string, string>
        expectSameValue(
          [got.seen, got.header, got.named],
          ['Bearer API_KEY', 'Bearer API_KEY', 'undefined'],
          'the echo as the guest saw it',
        )
        for (const key of ['unbound', 'hop']) {
          if (!String(got[key]).includes('API_KEY') || !String(got[key]).includes('not bound')) {
            throw new Error(`the placeholder sent to an unbound host (${key}) should be refused naming the secret, got ${String(got[key])}`)
          }
        }
        const auth = server.seen.map((request) => request.headers.authorization)
        if (server.seen.length !== 2 || auth[0] !== `Bearer ${value}`) {
          throw new Error(
            `the bound host should have received the value once (and the redirect once), saw ${JSON.stringify(server.seen.map((r) => r.path))}`,
          )
        }
      })
    },
  },
  {
    group: 'fetch',
    name: 'fetch attack: an https server whose certificate is not trusted is refused (the host verifies TLS even when it connects by address)',
    async run({ sandbox }) {
      let reached = 0
      const server = createServer(UNTRUSTED_TLS, (_request, response) => {
        reached++
        response.end('should not be read')
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      try {
        const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
        const caught = await guestRefusal(sandbox, fetchOf(`${origin}/`), { allow: [origin], allowPrivateAddresses: true })
        expectRefused(caught, 'fetch failed', 'an untrusted certificate')
        if (!/certificate/i.test(caught[1])) throw new Error(`the refusal should name the certificate problem, got ${caught[1]}`)
        if (reached !== 0) throw new Error('the request reached a server whose certificate was not verified')
      } finally {
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
      }
    },
  },
]
