// The guarded fetch: the guest calls fetch, the host performs it, only for the allowed origin,
// and puts the API key in where the guest wrote its name. The API here is a local stand-in on
// loopback, so the example allows that address explicitly. Run: node examples/guarded-fetch.mjs
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

const KEY = 'sk-example-5d2c1f'
const api = createServer((request, response) => {
  const authorized = request.headers.authorization === `Bearer ${KEY}`
  response.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json' })
  response.end(JSON.stringify(authorized ? [{ id: 1, title: 'ship fetch' }] : { error: 'no key' }))
})
await new Promise((resolve) => api.listen(0, '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${api.address().port}`

const sandbox = createSandbox(createQuickJSBackend())
const code = `
const res = await fetch(${JSON.stringify(origin + '/issues')}, { headers: { Authorization: 'Bearer API_KEY' } })
const issues = await res.json()
console.log(res.status, issues.length, 'issue(s)')
let refused = ''
try { await fetch('http://169.254.169.254/latest/meta-data/') } catch (e) { refused = e.name + ': ' + e.message }
return { titles: issues.map((i) => i.title), refused, keyInGuest: typeof API_KEY }`

const r = await sandbox.run(code, {
  fetch: {
    allow: [origin],
    // Only because this API listens on loopback: real APIs need no opt-in.
    allowPrivateAddresses: true,
    secrets: { API_KEY: { value: KEY, hosts: ['127.0.0.1'] } },
  },
})
assert.ok(r.ok, JSON.stringify(r))
for (const entry of r.logs) console.log(`guest: ${entry.message}`)
console.log('titles:', r.value.titles)
console.log('refused:', r.value.refused)
console.log('API_KEY in the guest:', r.value.keyInGuest)
assert.ok(!JSON.stringify(r).includes(KEY))
await sandbox.dispose()
api.close()
