// Runs each example the way the README tells a user to (`node examples/<file>`), in a child
// process, and checks what it prints. The examples assert their own results too.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { inlineCopy } from './inline-copy.mjs'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))

async function runExample(file) {
  const { stdout } = await run(process.execPath, [file], { cwd: root, timeout: 50_000 })
  return stdout
}

/** The examples run on QuickJS in worker threads (the default) and again on the host's thread. */
async function runInline(file) {
  const copy = inlineCopy(root, file)
  try {
    return await runExample(copy.file)
  } finally {
    copy.remove()
  }
}

it('plugin-host.mjs: a plugin loaded once, called twice, then stopped when it hangs', async () => {
  const out = await runExample('plugin-host.mjs')
  expect(out).toContain('hello ada (#1, last was nobody)')
  expect(out).toContain('hello grace (#2, last was ada)')
  expect(out).toContain('greeter: 3 runs, 32 MB cap')
  expect(out).toContain('stuck plugin stopped: TIMEOUT; session ended: TIMEOUT')
})

it('notebook.mjs: a helper defined in one step is used in the next; an error keeps the session', async () => {
  const out = await runExample('notebook.mjs')
  expect(out).toContain("[3] → [ 'eu', 'us' ]")
  expect(out).toContain('[5] RUNTIME_ERROR')
})

it('guarded-fetch.mjs: the host fetches for the guest with the key it never sees, and refuses the metadata address', async () => {
  const out = await runExample('guarded-fetch.mjs')
  expect(out).toContain('guest: 200 1 issue(s)')
  expect(out).toContain("titles: [ 'ship fetch' ]")
  expect(out).toContain('refused: TypeError: http://169.254.169.254 is not allowed by fetch.allow')
  expect(out).toContain('API_KEY in the guest: undefined')
})

it('vetted-modules.mjs: the guest imports the vetted library (JavaScript and TypeScript) and nothing else', async () => {
  const out = await runExample('vetted-modules.mjs')
  expect(out).toContain('ada: 999.99 EUR')
  expect(out).toContain('grace: 1269.99 EUR')
  expect(out).toContain('import("node:fs"): Cannot find module "node:fs"')
})

it('approval.mjs: a run paused for approval resumes from a stored continuation; a tampered one is refused', async () => {
  const out = await runExample('approval.mjs')
  expect(out).toContain('paused: git.deleteBranch({"name":"feature/login"}) needs approval')
  expect(out).toContain("resumed after a no: [ 'kept feature/login (ada said no)', 'deleted old/experiment' ]")
  expect(out).toContain('tampered continuation: INVALID_CONTINUATION')
  const inline = await runInline('approval.mjs')
  expect(inline).toContain("resumed after a no: [ 'kept feature/login (ada said no)', 'deleted old/experiment' ]")
})

it("both examples print the same with QuickJS on the host's thread (thread: 'inline')", async () => {
  const host = await runInline('plugin-host.mjs')
  expect(host).toContain('hello grace (#2, last was ada)')
  expect(host).toContain('stuck plugin stopped: TIMEOUT; session ended: TIMEOUT')
  const notebook = await runInline('notebook.mjs')
  expect(notebook).toContain("[3] → [ 'eu', 'us' ]")
  expect(notebook).toContain('[5] RUNTIME_ERROR')
})

it('admission.mjs: with two runs in flight a third ends BUSY after its wait; a waiting run starts when a place frees', async () => {
  const out = await runExample('admission.mjs')
  expect(out).toContain('third run: BUSY')
  expect(out).toContain('fourth run: got a place')
})

it('traces.mjs: a run span under the caller span, a tool span under it, and no values in either', async () => {
  const out = await runExample('traces.mjs')
  expect(out).toContain('cordon.tool crm.findCustomer (parent: cordon.run)')
  expect(out).toContain('cordon.run (parent: POST /agent)')
  expect(out).toContain("'cordon.result.code': 'OK'")
})
