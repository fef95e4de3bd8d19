import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { engineChildren, running, waitFor } from './helpers.js'

const linux = process.platform === 'linux'
const FIXTURE = fileURLToPath(new URL('./fixtures/early-host.mjs', import.meta.url))

/** A fresh host process (fixtures/early-host.mjs) with its own launch-plan cache, read line by line. */
class Host {
  readonly proc: ChildProcessWithoutNullStreams
  private readonly lines: string[] = []
  private wake: (() => void) | undefined

  constructor(cacheHome: string, args: string[]) {
    this.proc = spawn(process.execPath, [FIXTURE, ...args], { env: { ...process.env, XDG_CACHE_HOME: cacheHome } })
    this.proc.stderr.pipe(process.stderr)
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      this.lines.push(line)
      this.wake?.()
    })
  }

  /** The rest of the next line that starts with `word`. */
  async next(word: string): Promise<string> {
    for (;;) {
      const index = this.lines.findIndex((line) => line.startsWith(`${word} `))
      if (index >= 0) return this.lines.splice(index, 1)[0]!.slice(word.length + 1)
      if (this.proc.exitCode !== null) throw new Error(`the host exited (${this.proc.exitCode}) before saying ${word}`)
      await new Promise<void>((resolve) => {
        this.wake = resolve
        setTimeout(resolve, 100)
      })
    }
  }

  say(line: string): void {
    this.proc.stdin.write(`${line}\n`)
  }

  async end(): Promise<void> {
    if (this.proc.exitCode !== null) return
    const exited = new Promise((resolve) => this.proc.once('exit', resolve))
    this.say('end')
    await exited
  }
}

/** The host's engine child, once its launch wrappers have become it. */
async function earlyChild(host: Host): Promise<number[]> {
  await waitFor(() => engineChildren(host.proc.pid).length > 0, 10_000)
  const early = engineChildren(host.proc.pid)
  expect(early).toHaveLength(1)
  return early
}

describe.runIf(linux)('startEngineChildEarly (@cordon/backend-subprocess/early-start)', () => {
  let cacheHome: string

  beforeAll(async () => {
    cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'cordon-early-'))
    // A first process probes, checks isolated-vm in a child and remembers it in the cache.
    const first = new Host(cacheHome, ['remember'])
    expect(await first.next('RESULT')).toBe('3')
  }, 60_000)

  afterAll(() => fs.rmSync(cacheHome, { recursive: true, force: true }))

  it('starts the engine child a default backend then adopts: its first run starts no other', async () => {
    const host = new Host(cacheHome, ['{}'])
    try {
      expect(await host.next('STARTED')).toBe('true')
      const early = await earlyChild(host)
      host.say('run')
      expect(await host.next('RESULT')).toBe('3')
      expect(engineChildren(host.proc.pid)).toEqual(early)
    } finally {
      await host.end()
    }
  })

  it('ends the early child when the first backend starts a different one, whose run still works', async () => {
    const host = new Host(cacheHome, [JSON.stringify({ childMemoryMb: 512 })])
    try {
      expect(await host.next('STARTED')).toBe('true')
      const early = await earlyChild(host)
      host.say('run')
      expect(await host.next('RESULT')).toBe('3')
      expect(await waitFor(() => !running(early[0]!), 5_000)).toBe(true)
      const now = engineChildren(host.proc.pid)
      expect(now).toHaveLength(1)
      expect(now).not.toEqual(early)
    } finally {
      await host.end()
    }
  })

  it('does not keep its host alive, and its child leaves with the host', async () => {
    const host = new Host(cacheHome, ['{}'])
    expect(await host.next('STARTED')).toBe('true')
    const early = await earlyChild(host)
    // Nothing else holds the host now: it ends well before the 10 s after which an unadopted child is ended.
    host.say('end')
    expect(await waitFor(() => host.proc.exitCode !== null, 5_000)).toBe(true)
    expect(host.proc.exitCode).toBe(0)
    expect(await waitFor(() => !running(early[0]!), 5_000)).toBe(true)
  })

  it('ends a child no backend adopts within 10 s, while its host goes on', async () => {
    const host = new Host(cacheHome, ['{}'])
    try {
      expect(await host.next('STARTED')).toBe('true')
      const early = await earlyChild(host)
      expect(await waitFor(() => !running(early[0]!), 20_000)).toBe(true)
      expect(host.proc.exitCode).toBe(null)
      // The backend made later starts its own child.
      host.say('run')
      expect(await host.next('RESULT')).toBe('3')
    } finally {
      await host.end()
    }
  }, 30_000)

  it('starts nothing when the cache does not remember an engine (a first process here)', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cordon-early-empty-'))
    const host = new Host(empty, ['{}'])
    try {
      expect(await host.next('STARTED')).toBe('false')
      expect(engineChildren(host.proc.pid)).toEqual([])
    } finally {
      await host.end()
      fs.rmSync(empty, { recursive: true, force: true })
    }
  })
})
