// Runs each example the way the README tells a user to (`node examples/<file>`), in a child
// process, and checks what it prints. The examples assert their own results too.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))

async function runExample(file) {
  const { stdout } = await run(process.execPath, [file], { cwd: root, timeout: 50_000 })
  return stdout
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
