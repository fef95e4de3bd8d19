import { spawn } from 'node:child_process'
import { createRemoteBackend } from '@cordon/backend-remote'
import { createSandbox } from '@cordon/core'
import { createSubprocessBackend } from '../backend-subprocess/dist/index.js'
const token = 'x'.repeat(20)
const child = spawn(process.execPath, ['../../apps/server/dist/main.js', '--port', '7396', ...process.argv.slice(2)], { env: { ...process.env, CORDON_SERVER_TOKEN: token }, stdio: 'ignore' })
for (;;) { if ((await fetch('http://127.0.0.1:7396/readyz').catch(() => undefined))?.status === 200) break; await new Promise(r => setTimeout(r, 50)) }
const remote = createSandbox(await createRemoteBackend({ url: 'http://127.0.0.1:7396', token }))
const local = createSandbox(createSubprocessBackend())
const med = (s) => (s.sort((a, b) => a - b), s[s.length >> 1])
for (let round = 0; round < 3; round++) {
  const l = [], r = []
  for (let i = 0; i < 200; i++) {
    let t = performance.now(); await local.run('1'); l.push(performance.now() - t)
    t = performance.now(); await remote.run('1'); r.push(performance.now() - t)
  }
  console.log('local', med(l).toFixed(3), 'remote', med(r).toFixed(3))
}
await remote.dispose(); await local.dispose(); child.kill()
