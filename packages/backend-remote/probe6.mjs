import { spawn } from 'node:child_process'
import { createRemoteBackend } from '@cordon/backend-remote'
import { createSandbox } from '@cordon/core'
const token = 'x'.repeat(20)
const child = spawn(process.execPath, ['../../apps/server/dist/main.js', '--port', '7395'], { env: { ...process.env, CORDON_SERVER_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] })
const serverMs = new Map()
let rest = ''
child.stdout.on('data', (c) => { const lines = (rest + c).split('\n'); rest = lines.pop(); for (const l of lines) { const e = JSON.parse(l); if (e.msg === 'run ended') serverMs.set(e.runId, e.ms) } })
for (;;) { if ((await fetch('http://127.0.0.1:7395/readyz').catch(() => undefined))?.status === 200) break; await new Promise(r => setTimeout(r, 50)) }
const remote = createSandbox(await createRemoteBackend({ url: 'http://127.0.0.1:7395', token }))
const med = (s) => (s.sort((a, b) => a - b), s[s.length >> 1])
for (let round = 0; round < 3; round++) {
  const c = [], ids = []
  for (let i = 0; i < 200; i++) { const t = performance.now(); const r = await remote.run('1'); c.push(performance.now() - t); ids.push(r.stats.runId) }
  await new Promise(r => setTimeout(r, 100))
  console.log('client', med(c).toFixed(3), 'server', med(ids.map(id => serverMs.get(id))).toFixed(3))
}
await remote.dispose(); child.kill()
