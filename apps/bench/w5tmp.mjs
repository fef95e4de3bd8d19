import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
for (const opts of [{ thread: 'inline' }, { workers: 1 }, { workers: 2 }, { workers: 4 }, { workers: 2, poolSize: 4 }]) {
  const sandbox = createSandbox(createQuickJSBackend(opts))
  await Promise.all(Array.from({ length: 8 }, () => sandbox.run('return 1 + 2')))
  for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: 8 }, () => sandbox.run('return 1 + 2')))
  const t0 = performance.now(); let n = 0
  while (performance.now() - t0 < 2000) { await Promise.all(Array.from({ length: 8 }, () => sandbox.run('return 1 + 2'))); n += 8 }
  console.log(JSON.stringify(opts), 'W6 runs/s', (n / ((performance.now() - t0) / 1000)).toFixed(0))
  await sandbox.dispose()
}
