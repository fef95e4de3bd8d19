import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
for (const opts of [{ thread: "inline" }, { workers: 1 }, { workers: 2 }, { workers: 4 }, { thread: "inline" }, { workers: 2 }]) {
  const sandbox = createSandbox(createQuickJSBackend(opts))
  for (let i = 0; i < 10; i++) await Promise.all(Array.from({ length: 8 }, () => sandbox.run('return 1 + 2')))
  const elu0 = performance.eventLoopUtilization()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now(); let n = 0
  while (performance.now() - t0 < 2000) { await Promise.all(Array.from({ length: 8 }, () => sandbox.run('return 1 + 2'))); n += 8 }
  const wall = performance.now() - t0
  const elu = performance.eventLoopUtilization(elu0)
  const cpu = process.cpuUsage(cpu0)
  console.log(JSON.stringify(opts), 'runs/s', (n / (wall / 1000)).toFixed(0), 'host loop busy µs/run', ((elu.active * 1000) / n).toFixed(0), 'process cpu µs/run', ((cpu.user + cpu.system) / n).toFixed(0))
  await sandbox.dispose()
}
