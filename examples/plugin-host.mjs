// A plugin host: each plugin is loaded once into its own session, with the limits and the
// tools its manifest grants, then called many times. Run: node examples/plugin-host.mjs
import assert from 'node:assert/strict'
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

const hostTools = {
  'kv.get': { execute: ({ key }) => store.get(key) ?? null },
  'kv.set': { execute: ({ key, value }) => void store.set(key, value) },
  'http.fetch': {
    execute: () => {
      throw new Error('no network in this example')
    },
  },
}
const store = new Map()

const manifest = { id: 'greeter', memoryMb: 32, timeoutMs: 1_000, permissions: ['kv'] }
const pluginSource = `
  let greeted = 0
  async function onMessage(msg) {
    greeted++
    const last = await kv.get({ key: 'last' })
    await kv.set({ key: 'last', value: msg.from })
    return \`hello \${msg.from} (#\${greeted}, last was \${last ?? 'nobody'})\`
  }
`

const sandbox = createSandbox(createQuickJSBackend())
// The manifest's permissions become the session's grant: only kv.* exists inside the plugin.
const granted = Object.fromEntries(Object.entries(hostTools).filter(([name]) => manifest.permissions.includes(name.split('.')[0])))
const plugin = await sandbox.createSession({ id: manifest.id, memoryMb: manifest.memoryMb, timeoutMs: manifest.timeoutMs, tools: granted })

const loaded = await plugin.run(pluginSource)
assert.ok(loaded.ok, JSON.stringify(loaded))

for (const from of ['ada', 'grace']) {
  const r = await plugin.run('await onMessage(msg)', { globals: { msg: { from } } })
  assert.ok(r.ok, JSON.stringify(r))
  console.log(r.value)
}
console.log(
  sandbox
    .sessions()
    .map(({ id, runs, memoryMb }) => `${id}: ${runs} runs, ${memoryMb} MB cap`)
    .join('\n'),
)

// A misbehaving call ends the plugin's session; the host and other plugins are unaffected.
const hung = await plugin.run('while (true) {}')
assert.equal(hung.ok, false)
console.log(`stuck plugin stopped: ${hung.error.code}; session ended: ${plugin.ended?.code}`)
await sandbox.dispose()
