import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
const sandbox = createSandbox(createQuickJSBackend(process.argv[2] === 'inline' ? { thread: 'inline' } : { workers: Number(process.argv[2]) }))
for (let i = 0; i < 10; i++) await Promise.all(Array.from({ length: 8 }, () => sandbox.run('return 1 + 2')))
const t0 = performance.now(); let n = 0
while (performance.now() - t0 < 3000) { await Promise.all(Array.from({ length: 8 }, () => sandbox.run('return 1 + 2'))); n += 8 }
console.log('runs/s', (n / ((performance.now() - t0) / 1000)).toFixed(0))
await sandbox.dispose()
