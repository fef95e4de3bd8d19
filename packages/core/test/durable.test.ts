import { afterAll, describe, expect, it } from 'vitest'
import { createSandbox, isSandboxError, type DurableOptions, type RunResult, type ToolSet } from '../src/index.js'
import { createVmBackend } from '../../conformance/test/fakes/vm-backend.js'

const KEY_A = 'a'.repeat(32)
const KEY_B = 'b'.repeat(32)
const sandboxes: ReturnType<typeof createSandbox>[] = []
function sandboxWith(durable?: DurableOptions) {
  const sandbox = createSandbox(createVmBackend(), durable === undefined ? {} : { durable })
  sandboxes.push(sandbox)
  return sandbox
}
afterAll(() => Promise.all(sandboxes.map((s) => s.dispose())))

const PROGRAM = `const ok = await ask.human({ q: 'deploy?' }); return ok`
const tools: ToolSet = { 'ask.human': { execute: (_args, ctx) => ctx.interrupt('need a person') } }

function continuationOf(result: RunResult): string {
  if (!result.interrupted) throw new Error(`expected a pause, got ${JSON.stringify(result)}`)
  return result.continuation
}

const refused = (pattern: RegExp) => (error: unknown) => isSandboxError(error, 'INVALID_CONTINUATION') && pattern.test(error.message)

describe('durable options', () => {
  it('rejects short keys, empty key lists and unknown fields', () => {
    expect(() => sandboxWith({ keys: ['short'] })).toThrow(/at least 32/)
    expect(() => sandboxWith({ keys: [] })).toThrow(/non-empty/)
    expect(() => sandboxWith({ keys: [KEY_A], ttl: 5 } as never)).toThrow(/unknown option "ttl"/)
    expect(() => sandboxWith({ keys: [KEY_A], maxAgeMs: 0 })).toThrow(/maxAgeMs/)
  })

  it('a tool that pauses on a sandbox without keys ends the run with UNSUPPORTED', async () => {
    const r = await sandboxWith().run(PROGRAM, { tools })
    expect(r).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', message: expect.stringMatching(/durable keys/) } })
  })

  it('resume without keys, without an answer or with both is host misuse', async () => {
    await expect(sandboxWith().resume('c1.x.y', { answer: 1 })).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
    const sandbox = sandboxWith({ keys: [KEY_A] })
    await expect(sandbox.resume('c1.x.y', {})).rejects.toThrow(/exactly one of answer/)
    await expect(sandbox.resume('c1.x.y', { answer: 1, reject: 'no' })).rejects.toThrow(/exactly one of answer/)
    await expect(sandbox.resume('c1.x.y', { answer: () => 1 })).rejects.toSatisfy((e) => isSandboxError(e, 'INVALID_OPTIONS'))
  })
})

describe('continuation security', () => {
  it('refuses a continuation whose state or signature was changed', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A] })
    const token = continuationOf(await sandbox.run(PROGRAM, { tools }))
    const [head, body, mac] = token.split('.') as [string, string, string]
    // Make the code return something else: a new state under the old signature.
    const state = JSON.parse(Buffer.from(body, 'base64url').toString()) as { code: string }
    state.code = state.code.replace('return ok', 'return "pwned"')
    const forged = `${head}.${Buffer.from(JSON.stringify(state)).toString('base64url')}.${mac}`
    await expect(sandbox.resume(forged, { answer: true, tools })).rejects.toSatisfy(refused(/signature/))
    const flipped = `${head}.${body}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`
    await expect(sandbox.resume(flipped, { answer: true, tools })).rejects.toSatisfy(refused(/signature/))
    await expect(sandbox.resume('not a continuation', { answer: true, tools })).rejects.toSatisfy(refused(/not a cordon/))
    // The last character of the MAC has two spare bits that decoders ignore: changing them is refused too.
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const spare = ALPHABET[ALPHABET.indexOf(mac.at(-1)!) ^ 1]!
    await expect(sandbox.resume(`${head}.${body}.${mac.slice(0, -1)}${spare}`, { answer: true, tools })).rejects.toSatisfy(
      refused(/base64url/),
    )
    // The untouched token still resumes.
    expect(await sandbox.resume(token, { answer: 'yes', tools })).toMatchObject({ ok: true, value: 'yes' })
  })

  it('refuses a foreign key and accepts an old key after rotation', async () => {
    const token = continuationOf(await sandboxWith({ keys: [KEY_A] }).run(PROGRAM, { tools }))
    await expect(sandboxWith({ keys: [KEY_B] }).resume(token, { answer: 1, tools })).rejects.toSatisfy(refused(/signature/))
    const rotated = sandboxWith({ keys: [KEY_B, KEY_A] })
    expect(await rotated.resume(token, { answer: 1, tools })).toMatchObject({ ok: true, value: 1 })
    // A pause after the rotation is signed with the new key only.
    const next = continuationOf(await rotated.run(PROGRAM, { tools }))
    await expect(sandboxWith({ keys: [KEY_A] }).resume(next, { answer: 1, tools })).rejects.toSatisfy(refused(/signature/))
  })

  it('encrypts when asked: the code and results are unreadable, and plain and encrypted sandboxes refuse each other', async () => {
    const secretTools: ToolSet = { ...tools, 'db.secret': { execute: () => 'hunter2-token' } }
    const code = `const s = await db.secret(); const ok = await ask.human({}); return s + ok`
    const sealed = sandboxWith({ keys: [KEY_A], encrypt: true })
    const token = continuationOf(await sealed.run(code, { tools: secretTools }))
    const decoded = Buffer.from(token.split('.')[1]!, 'base64url').toString('latin1')
    expect(decoded).not.toContain('hunter2')
    expect(decoded).not.toContain('db.secret')
    expect(await sealed.resume(token, { answer: '!', tools: secretTools })).toMatchObject({ ok: true, value: 'hunter2-token!' })
    await expect(sandboxWith({ keys: [KEY_A] }).resume(token, { answer: 1, tools: secretTools })).rejects.toSatisfy(refused(/encrypted/))
    const plain = continuationOf(await sandboxWith({ keys: [KEY_A] }).run(code, { tools: secretTools }))
    expect(Buffer.from(plain.split('.')[1]!, 'base64url').toString()).toContain('hunter2')
    await expect(sealed.resume(plain, { answer: 1, tools: secretTools })).rejects.toSatisfy(refused(/not encrypted/))
  })

  it('refuses an expired continuation', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A], maxAgeMs: 1 })
    const token = continuationOf(await sandbox.run(PROGRAM, { tools }))
    await new Promise((resolve) => setTimeout(resolve, 20))
    await expect(sandbox.resume(token, { answer: 1, tools })).rejects.toSatisfy(refused(/expired/))
  })

  it('refuses other code and other tools', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A] })
    const token = continuationOf(await sandbox.run(PROGRAM, { tools }))
    await expect(sandbox.resume(token, { answer: 1, tools, code: PROGRAM + ' + 1' })).rejects.toSatisfy(refused(/other code/))
    const renamed: ToolSet = { 'ask.person': tools['ask.human']! }
    await expect(sandbox.resume(token, { answer: 1, tools: renamed })).rejects.toSatisfy(refused(/tools differ/))
    const schema: ToolSet = { 'ask.human': { ...tools['ask.human']!, inputSchema: { type: 'object' } } }
    await expect(sandbox.resume(token, { answer: 1, tools: schema })).rejects.toSatisfy(refused(/tools differ/))
    expect(await sandbox.resume(token, { answer: 1, tools, code: PROGRAM })).toMatchObject({ ok: true, value: 1 })
  })
})

describe('single use (durable.claim)', () => {
  it('a claimed continuation is refused the second time, before any tool runs', async () => {
    const claimed = new Set<string>()
    const sandbox = sandboxWith({ keys: [KEY_A], claim: (id) => !claimed.has(id) && Boolean(claimed.add(id)) })
    let deleted = 0
    const guarded: ToolSet = { ...tools, 'git.remove': { execute: () => ++deleted } }
    const paused = await sandbox.run(`await ask.human(1); return await git.remove()`, { tools: guarded })
    const token = continuationOf(paused)
    expect(await sandbox.resume(token, { answer: true, tools: guarded })).toMatchObject({ ok: true, value: 1 })
    await expect(sandbox.resume(token, { answer: true, tools: guarded })).rejects.toSatisfy(refused(/already used/))
    expect(deleted).toBe(1)
    expect(claimed).toEqual(new Set([paused.interrupted && paused.continuationId]))
    // Another pause of the same program has its own id.
    const again = await sandbox.run(`await ask.human(1); return await git.remove()`, { tools: guarded })
    expect(again.interrupted && again.continuationId).not.toBe(paused.interrupted && paused.continuationId)
  })

  it('without claim, a continuation resumes again and the calls after its pause run again', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A] })
    let deleted = 0
    const guarded: ToolSet = { ...tools, 'git.remove': { execute: () => ++deleted } }
    const token = continuationOf(await sandbox.run(`await ask.human(1); return await git.remove()`, { tools: guarded }))
    await sandbox.resume(token, { answer: true, tools: guarded })
    await sandbox.resume(token, { answer: true, tools: guarded })
    expect(deleted).toBe(2)
  })
})

describe('pausing', () => {
  it('needsApproval: an answer runs the tool once, a rejection never does', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A] })
    let deleted = 0
    const guarded: ToolSet = {
      'git.deleteBranch': {
        needsApproval: (args: { name: string }) => args.name !== 'scratch',
        execute: (args: { name: string }) => {
          deleted++
          return `deleted ${args.name}`
        },
      },
    }
    const code = `const a = await git.deleteBranch({ name: 'scratch' }); let b; try { b = await git.deleteBranch({ name: 'main' }) } catch (e) { b = 'denied: ' + e.message }; return [a, b]`
    const paused = await sandbox.run(code, { tools: guarded })
    expect(paused).toMatchObject({ interrupted: true, interrupt: { reason: 'approval', tool: 'git.deleteBranch', args: { name: 'main' } } })
    expect(deleted).toBe(1)
    const approved = await sandbox.resume(continuationOf(paused), { answer: true, tools: guarded })
    expect(approved).toMatchObject({ ok: true, value: ['deleted scratch', 'deleted main'] })
    expect(deleted).toBe(2)
    const denied = await sandbox.resume(continuationOf(paused), { reject: 'not main', tools: guarded })
    expect(denied).toMatchObject({ ok: true, value: ['deleted scratch', 'denied: not main'] })
    expect(deleted).toBe(2)
  })

  it('a session run cannot pause: it ends with UNSUPPORTED and, stopped mid-program, ends its session', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A] })
    const session = await sandbox.createSession({ tools })
    const r = await session.run(PROGRAM)
    expect(r).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED', message: expect.stringMatching(/session run cannot pause/) } })
    await expect(session.run('1 + 1')).rejects.toSatisfy((e) => isSandboxError(e, 'DISPOSED'))
  })

  it('a call still running when another pauses the run finishes and is recorded, not repeated', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A] })
    let slowCalls = 0
    const both: ToolSet = {
      ...tools,
      slow: {
        execute: async (_args, ctx) => {
          slowCalls++
          await new Promise((resolve) => setTimeout(resolve, 30))
          return ctx.signal.aborted ? 'aborted' : 'done'
        },
      },
    }
    const paused = await sandbox.run(`return await Promise.all([slow(), ask.human({})])`, { tools: both })
    const resumed = await sandbox.resume(continuationOf(paused), { answer: 'ok', tools: both })
    expect(resumed).toMatchObject({ ok: true, value: ['done', 'ok'] })
    expect(slowCalls).toBe(1)
  })

  it('a resumed run can pause again and its continuation carries the whole ledger', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A] })
    let reads = 0
    const counted: ToolSet = { ...tools, read: { execute: () => ++reads } }
    const code = `const a = await read(); const x = await ask.human(1); const b = await read(); const y = await ask.human(2); return [a, x, b, y, await read()]`
    const first = await sandbox.run(code, { tools: counted })
    const second = await sandbox.resume(continuationOf(first), { answer: 'x', tools: counted })
    expect(second).toMatchObject({ interrupted: true, interrupt: { args: 2 } })
    const done = await sandbox.resume(continuationOf(second), { answer: 'y', tools: counted })
    expect(done).toMatchObject({ ok: true, value: [1, 'x', 2, 'y', 3] })
    expect(reads).toBe(3)
  })

  it('a recorded tool failure replays with its name, message and code, and the tool is not called again', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A] })
    let calls = 0
    const failing: ToolSet = {
      ...tools,
      'db.get': {
        execute: () => {
          calls++
          throw Object.assign(new Error('no row'), { name: 'NotFoundError', code: 'E_ROW' })
        },
      },
    }
    const code =
      'let seen\ntry { await db.get() } catch (e) { seen = [e.name, e.message, e.code, e instanceof Error] }\nconst ok = await ask.human({})\nreturn [seen, ok]'
    const paused = await sandbox.run(code, { tools: failing })
    const resumed = await sandbox.resume(continuationOf(paused), { answer: true, tools: failing })
    expect(resumed).toMatchObject({ ok: true, value: [['NotFoundError', 'no row', 'E_ROW', true], true] })
    expect(calls).toBe(1)
  })
})

describe('divergence', () => {
  it('a resumed program that throws before it has made every recorded call diverged', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A] })
    const reading: ToolSet = { ...tools, read: { execute: () => 1 } }
    const code = `if (mode === 'throw') throw new Error('changed its mind'); await read(); return await ask.human(1)`
    const token = continuationOf(await sandbox.run(code, { tools: reading, globals: { mode: 'go' } }))
    const resumed = await sandbox.resume(token, { answer: 1, tools: reading, globals: { mode: 'throw' } })
    expect(resumed).toMatchObject({ ok: false, error: { code: 'REPLAY_DIVERGED', message: expect.stringMatching(/after 0 of the 2/) } })
  })
})

describe('sync tools', () => {
  it('are recorded, replayed without being called, and can pause the run', async () => {
    const sandbox = sandboxWith({ keys: [KEY_A] })
    let reads = 0
    const syncTools: ToolSet = {
      'kv.get': { sync: true, execute: (key: string) => `${key}=${++reads}` },
      'kv.confirm': { sync: true, needsApproval: (key: string) => key === 'danger', execute: (key: string) => `confirmed ${key}` },
    }
    const code = `const a = kv.get('x'); const b = kv.confirm('safe'); const c = kv.confirm('danger'); return [a, b, c, kv.get('y')]`
    const paused = await sandbox.run(code, { tools: syncTools })
    expect(paused).toMatchObject({ interrupted: true, interrupt: { reason: 'approval', tool: 'kv.confirm', args: 'danger' } })
    const resumed = await sandbox.resume(continuationOf(paused), { answer: true, tools: syncTools })
    expect(resumed).toMatchObject({ ok: true, value: ['x=1', 'confirmed safe', 'confirmed danger', 'y=2'] })
    expect(reads).toBe(2)
  })
})

describe('the ledger digest', () => {
  it('is SHA-256: the same bytes as WebCrypto at every block boundary', async () => {
    const { sha256 } = await import('../src/durable/sha256.js')
    for (const text of ['', 'abc', 'é€😀', ...[55, 56, 63, 64, 65, 119, 120, 1000].map((n) => 'x'.repeat(n))]) {
      const expected = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
      expect([...sha256(text)]).toEqual([...expected])
    }
  })
})
