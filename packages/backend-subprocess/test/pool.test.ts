import { describe, expect, it } from 'vitest'
import { errorOf, open, valueOf } from './helpers.js'

const heapLimit = "escapedProcess.getBuiltinModule('v8').getHeapStatistics().heap_size_limit / 1048576"

describe('the warm pool', () => {
  it('gives each memoryMb its own children, with that heap cap', async () => {
    const { backend, sandbox } = await open({ poolSize: 1 }, { exposeProcess: true })
    try {
      await backend.warm(40)
      await backend.warm(200)
      const small = valueOf(await sandbox.run(heapLimit, { memoryMb: 40 })) as number
      const large = valueOf(await sandbox.run(heapLimit, { memoryMb: 200 })) as number
      expect(small).toBeGreaterThanOrEqual(40)
      expect(small).toBeLessThan(60)
      expect(large).toBeGreaterThanOrEqual(200)
      expect(large).toBeLessThan(260)
    } finally {
      await sandbox.dispose()
    }
  })

  it('never reuses a child: every run sees a fresh process and a fresh context', async () => {
    const { sandbox } = await open({ poolSize: 2 }, { exposeProcess: true })
    try {
      // A mark on the child's own process object would survive into a reused process.
      const code =
        "const seen = [globalThis.mark ?? 'fresh context', escapedProcess.mark ?? 'fresh process']\nglobalThis.mark = escapedProcess.mark = 'used'\nreturn seen"
      for (let i = 0; i < 4; i++) expect(valueOf(await sandbox.run(code))).toEqual(['fresh context', 'fresh process'])
    } finally {
      await sandbox.dispose()
    }
  })

  it('works with poolSize 0 (a child started per run)', async () => {
    const { sandbox } = await open({ poolSize: 0 })
    try {
      expect(valueOf(await sandbox.run('6 * 7'))).toBe(42)
      expect(valueOf(await sandbox.run('6 * 8'))).toBe(48)
    } finally {
      await sandbox.dispose()
    }
  })

  it('runs many programs at once, each in its own child', async () => {
    const { sandbox } = await open({ poolSize: 2 })
    try {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          sandbox.run(`globalThis.own = ${i}\nawait new Promise((r) => setTimeout(r, 20))\nreturn globalThis.own`),
        ),
      )
      expect(results.map(valueOf)).toEqual(Array.from({ length: 12 }, (_, i) => i))
    } finally {
      await sandbox.dispose()
    }
  })

  it('a run stopped while its child is still starting resolves promptly', async () => {
    const { sandbox } = await open({ poolSize: 0 })
    try {
      const controller = new AbortController()
      const pending = sandbox.run('1', { signal: controller.signal, memoryMb: 77 })
      controller.abort()
      const started = Date.now()
      expect(errorOf(await pending).code).toBe('ABORTED')
      expect(Date.now() - started).toBeLessThan(500)
    } finally {
      await sandbox.dispose()
    }
  })
})
