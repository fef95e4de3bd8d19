/**
 * The caps of the guarded fetch: requests per run, request and response bytes per run, time per
 * request; and the run's own deadline and abort, which must end the host's request (the server
 * sees its connection closed), not just stop waiting for it.
 */
import { withTestServer } from '../harness/http-server.js'
import { expectError, expectNotLate, runOk, timedRun } from '../harness/run.js'
import { expectSameValue } from '../harness/same-value.js'
import type { ConformanceCheck } from '../types.js'
import { allowServer, expectRefused, guestRefusal } from '../harness/fetch-run.js'

export const fetchLimitChecks: ConformanceCheck[] = [
  {
    group: 'fetch',
    name: 'fetch limits: more than maxRequests is refused with a TypeError, and the guest goes on',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const code = `const out = []
for (let i = 0; i < 4; i++) {
  try { out.push((await fetch(${JSON.stringify(server.origin + '/echo')})).status) } catch (e) { out.push(e instanceof TypeError && e.message.includes('too many requests')) }
}
return out`
        const value = await runOk(sandbox, code, { fetch: allowServer(server, { maxRequests: 3 }) })
        expectSameValue(value, [200, 200, 200, true], 'three fetches, then a refusal')
        if (server.seen.length !== 3) throw new Error(`the server should have seen 3 requests, saw ${server.seen.length}`)
      })
    },
  },
  {
    group: 'fetch',
    name: 'fetch limits: request bodies over maxRequestBytes are refused before anything is sent',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const fetch = allowServer(server, { maxRequestBytes: 1000 })
        const body = `await fetch(${JSON.stringify(server.origin + '/echo')}, { method: 'POST', body: new Uint8Array(1001) })`
        expectRefused(await guestRefusal(sandbox, body, fetch), 'request too large', 'a 1001-byte body')
        if (server.seen.length !== 0) throw new Error('the server received an oversized body')
      })
    },
  },
  {
    group: 'fetch',
    name: 'fetch limits: a response over maxResponseBytes is refused with a TypeError and the host stops reading (the server sees the connection closed)',
    async run({ sandbox }) {
      await withTestServer(async (server) => {
        const fetch = allowServer(server, { maxResponseBytes: 64 * 1024 })
        const body = `const r = await fetch(${JSON.stringify(server.origin + '/bytes?n=' + 64 * 1024 * 1024)})\nawait r.arrayBuffer()`
        expectRefused(await guestRefusal(sandbox, body, fetch), 'response too large', 'a 64 MiB response')
        await server.cutOffWithin('/bytes', 5_000)
        const small = await runOk(
          sandbox,
          `(await (await fetch(${JSON.stringify(server.origin + '/bytes?n=1000')})).arrayBuffer()).byteLength`,
          { fetch },
        )
        expectSameValue(small, 1000, 'a response under the cap')
      })
    },
  },
  {
    group: 'fetch',
    name: "fetch limits: requestTimeoutMs rejects a slow fetch with a TypeError, and the run's deadline or abort ends an in-flight fetch on the host",
    timeoutMs: 20_000,
    async run({ sandbox, options }) {
      await withTestServer(async (server) => {
        const slow = JSON.stringify(server.origin + '/slow')
        const timedOut = await guestRefusal(sandbox, `await (await fetch(${slow})).text()`, allowServer(server, { requestTimeoutMs: 300 }))
        expectRefused(timedOut, 'timed out', 'requestTimeoutMs 300')
        await server.cutOffWithin('/slow', 2_000)
        server.cutOff.length = 0

        const deadline = await timedRun(sandbox, `await (await fetch(${slow})).text()`, { fetch: allowServer(server), timeoutMs: 400 })
        expectError(deadline.result, 'TIMEOUT')
        expectNotLate(deadline, 400, options.timeoutSlackMs, 'TIMEOUT (deadline 400 ms)')
        await server.cutOffWithin('/slow', 2_000)
        server.cutOff.length = 0

        const controller = new AbortController()
        setTimeout(() => controller.abort(), 300)
        const aborted = await timedRun(sandbox, `await fetch(${slow}).then((r) => r.text())`, {
          fetch: allowServer(server),
          signal: controller.signal,
        })
        expectError(aborted.result, 'ABORTED')
        await server.cutOffWithin('/slow', 2_000)
      })
    },
  },
]
