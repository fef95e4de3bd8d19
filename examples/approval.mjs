// An agent's program asks a person before it deletes anything. The run pauses, nothing of it
// stays in memory while the person thinks, and it resumes later — here from a continuation
// that went through a file, as it would through a database or another machine.
// Run: node examples/approval.mjs
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

// In production the key comes from your secret store, and every process that resumes shares it.
const durable = { keys: [randomBytes(32)] }

const branches = ['main', 'feature/login', 'old/experiment']
let listCalls = 0
const tools = {
  'git.listBranches': {
    execute: () => {
      listCalls++
      return [...branches]
    },
  },
  // Deleting needs a person's yes for anything but old/ branches.
  'git.deleteBranch': {
    needsApproval: ({ name }) => !name.startsWith('old/'),
    execute: ({ name }) => {
      branches.splice(branches.indexOf(name), 1)
      return `deleted ${name}`
    },
  },
}

// What the model wrote: clean up every branch but main.
const program = `
  const all = await git.listBranches()
  const done = []
  for (const name of all.filter((b) => b !== 'main')) {
    try {
      done.push(await git.deleteBranch({ name }))
    } catch (error) {
      done.push('kept ' + name + ' (' + error.message + ')')
    }
  }
  console.log('finished at', new Date().toISOString())
  return done`

// 1. The run pauses at the first call that needs approval.
const first = createSandbox(createQuickJSBackend(), { durable })
const paused = await first.run(program, { tools })
assert.ok(paused.interrupted, JSON.stringify(paused))
console.log(`paused: ${paused.interrupt.tool}(${JSON.stringify(paused.interrupt.args)}) needs approval`)
const dir = mkdtempSync(join(tmpdir(), 'cordon-approval-'))
writeFileSync(join(dir, 'pending.txt'), paused.continuation)
await first.dispose()
console.log(`continuation stored: ${paused.continuation.length} characters`)

// 2. Later, maybe in another process: a person said no. The recorded calls are answered from
//    the continuation (listBranches is not called again); the program goes on from the refusal.
const later = createSandbox(createQuickJSBackend(), { durable })
const refused = await later.resume(readFileSync(join(dir, 'pending.txt'), 'utf8'), { reject: 'ada said no', tools })
assert.ok(refused.ok, JSON.stringify(refused))
console.log('resumed after a no:', refused.value)
console.log(`  guest log: ${refused.logs[0].message}`)
assert.deepEqual(refused.value, ['kept feature/login (ada said no)', 'deleted old/experiment'])
assert.equal(listCalls, 1)

// 3. A tampered continuation is refused before anything runs.
const tampered = paused.continuation.slice(0, -2) + (paused.continuation.endsWith('AA') ? 'BB' : 'AA')
await assert.rejects(later.resume(tampered, { answer: true, tools }), { code: 'INVALID_CONTINUATION' })
console.log('tampered continuation: INVALID_CONTINUATION')

await later.dispose()
rmSync(dir, { recursive: true, force: true })
