/**
 * The guarded fetch (`fetch: { allow, secrets }`): absent by default; with it, a WHATWG-shaped
 * fetch performed by the host against a real server on loopback, which the checks allow
 * explicitly (`allowPrivateAddresses` and the address named literally). The attacks on the guard
 * are in fetch-attacks.ts, its caps in fetch-limits.ts.
 */
import type { FetchOptions, RunEvent } from '@cordon/core'
import { withTestServer } from '../harness/http-server.js'
import { allowServer } from '../harness/fetch-run.js'
import { expectHostError, runOk } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'
import { fetchAttackChecks } from './fetch-attacks.js'
import { fetchLimitChecks } from './fetch-limits.js'

export const fetchChecks: ConformanceCheck[] = [
  {
    group: 'fetch',
    name: 'without the fetch option the guest has no fetch, Headers, Request or Response',
    async run({ sandbox }) {
      const value = await runOk(sandbox, "[typeof fetch, typeof Headers, typeof Request, typeof Response, 'fetch' in globalThis]")
      expectSameValue(value, ['undefined', 'undefined', 'undefined', 'undefined', false], 'the guest globals')
    },
  },
  {
    group: 'fetch',
    name: 'fetch reaches an allowed origin: method, headers, string and typed-array bodies, status, headers, url, text/json/arrayBuffer',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const url = JSON.stringify(`${server.origin}/echo?q=1`)
        const code = [
          `const get = await fetch(${url})`,
          'const getJson = await get.json()',
          `const post = await fetch(new Request(${url}, { method: 'post', headers: { 'X-One': 'a', 'Content-Type': 'text/plain' }, body: 'héllo' }))`,
          'const postJson = JSON.parse(await post.text())',
          `const bin = await fetch(${url}, { method: 'PUT', body: new Uint8Array([104, 105]) })`,
          'const binBytes = new Uint8Array(await bin.arrayBuffer())',
          'const h = new Headers([["a", "1"]]); h.append("A", "2")',
          'return {',
          '  status: get.status, ok: get.ok, statusText: get.statusText, url: get.url, type: get.headers.get("content-type"),',
          '  used: [get.bodyUsed, await get.text().then(() => "again", (e) => e instanceof TypeError)],',
          '  getMethod: getJson.method, path: getJson.path,',
          '  postMethod: postJson.method, postBody: postJson.body, xOne: postJson.headers["x-one"],',
          '  binMethod: JSON.parse(String.fromCharCode(...binBytes)).method, binBody: JSON.parse(String.fromCharCode(...binBytes)).body,',
          '  headers: [h.get("a"), h.has("b"), [...h.keys()]],',
          '}',
        ].join('\n')
        const value = await runOk(sandbox, code, { fetch: allowServer(server) })
        expectSameValue(
          value,
          {
            status: 200,
            ok: true,
            statusText: 'OK',
            url: `${server.origin}/echo?q=1`,
            type: 'application/json',
            used: [true, true],
            getMethod: 'GET',
            path: '/echo?q=1',
            postMethod: 'POST',
            postBody: 'héllo',
            xOne: 'a',
            binMethod: 'PUT',
            binBody: 'hi',
            headers: ['1, 2', false, ['a']],
          },
          'what the guest saw',
        )
      })
    },
  },
  {
    group: 'fetch',
    name: 'fetches run concurrently (Promise.all), a 404 is a Response with ok false, and each fetch is a tool call reported as tool "fetch"',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const events: RunEvent[] = []
        const code = `const rs = await Promise.all([1, 2, 3].map((n) => fetch(${JSON.stringify(server.origin)} + '/echo?n=' + n)))
const missing = await fetch(${JSON.stringify(server.origin)} + '/nothing')
return [rs.map((r) => r.status), missing.status, missing.ok, await missing.text()]`
        const result = await sandbox.run(code, { fetch: allowServer(server), onEvent: (event) => void events.push(event) })
        if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`)
        expectSameValue(result.value, [[200, 200, 200], 404, false, 'not found'], 'the statuses')
        if (result.stats.toolCalls !== 4) throw new Error(`stats.toolCalls should count the 4 fetches, got ${result.stats.toolCalls}`)
        const fetchStarts = events.filter((event) => event.type === 'tool-start' && event.tool === 'fetch').length
        const fetchEnds = events.filter((event) => event.type === 'tool-end' && event.tool === 'fetch').length
        if (fetchStarts !== 4 || fetchEnds !== 4)
          throw new Error(`expected 4 tool-start and 4 tool-end events for fetch, got ${fetchStarts} and ${fetchEnds}`)
      })
    },
  },
  {
    group: 'fetch',
    name: 'fetch calls count against maxToolCalls',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const code = `for (let i = 0; i < 3; i++) await fetch(${JSON.stringify(server.origin + '/echo')})\nreturn 'not reached'`
        const result = await sandbox.run(code, { fetch: allowServer(server), maxToolCalls: 2 })
        if (result.ok || result.error.code !== 'TOOL_CALL_LIMIT') throw new Error(`expected TOOL_CALL_LIMIT, got ${JSON.stringify(result)}`)
        if (server.seen.length !== 2) throw new Error(`the server should have seen 2 requests, saw ${server.seen.length}`)
      })
    },
  },
  {
    group: 'fetch',
    name: 'bad fetch options throw INVALID_OPTIONS from run() and createSandbox; fetch API names cannot be tools or globals',
    async run({ sandbox, newSandbox }) {
      const bad: unknown[] = [
        true,
        { allow: [] },
        { allow: 'https://api.example.com' },
        { allow: ['api.example.com'] },
        { allow: ['https://api.example.com/v1'] },
        { allow: ['https://user:pw@api.example.com'] },
        { allow: ['ftp://api.example.com'] },
        { allow: ['https://*.example.com'] },
        { allow: ['https://api.example.com'], secrets: { API_KEY: { value: 'v' } } },
        { allow: ['https://api.example.com'], secrets: { API_KEY: { value: 'v', hosts: [] } } },
        { allow: ['https://api.example.com'], secrets: { API_KEY: { value: 'v', hosts: ['other.example.com'] } } },
        { allow: ['https://api.example.com'], secrets: { API_KEY: { value: 'a\r\nb', hosts: ['api.example.com'] } } },
        { allow: ['https://api.example.com'], secrets: { 'bad name': { value: 'v', hosts: ['api.example.com'] } } },
        { allow: ['https://api.example.com'], maxRequests: 0 },
        { allow: ['https://api.example.com'], allowPrivateAddresses: 'yes' },
        { allow: ['https://api.example.com'], allowList: [] },
      ]
      for (const fetch of bad) {
        await expectHostError(
          () => sandbox.run('1', { fetch: fetch as FetchOptions }),
          'INVALID_OPTIONS',
          `run() with fetch ${JSON.stringify(fetch)}`,
        )
      }
      await expectHostError(
        () => newSandbox({ fetch: { allow: [] } }),
        'INVALID_OPTIONS',
        'createSandbox defaults with an empty allow list',
      )
      const fetch: FetchOptions = { allow: ['https://api.example.com'] }
      await expectHostError(
        () => sandbox.run('1', { fetch, tools: { fetch: { execute: () => 1 } } }),
        'INVALID_OPTIONS',
        'a tool named fetch',
      )
      await expectHostError(() => sandbox.run('1', { fetch, globals: { Headers: 1 } }), 'INVALID_OPTIONS', 'a global named Headers')
    },
  },
  ...fetchAttackChecks,
  ...fetchLimitChecks,
]
