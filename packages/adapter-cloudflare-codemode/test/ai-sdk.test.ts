/**
 * Cloudflare's `createCodeTool` for the AI SDK (`@cloudflare/codemode/ai`) in plain Node, through
 * `@cordon/cloudflare-codemode/register`: a child `node --import dist/register.js` runs
 * fixtures/ai-sdk.mjs (real AI SDK tools, every backend) and reports what each scenario gave.
 * Without the registration the entry does not load at all.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const packageDir = fileURLToPath(new URL('..', import.meta.url))
const register = fileURLToPath(new URL('../dist/register.js', import.meta.url))
const fixture = fileURLToPath(new URL('./fixtures/ai-sdk.mjs', import.meta.url))

type Outcome = { output?: { result: unknown; logs?: string[] }; threw?: string }
type Report = Record<
  string,
  {
    describes: boolean
    calls: Outcome
    binary: Outcome
    invalid: Outcome
    toolError: Outcome
    caught: Outcome
    thrown: Outcome
    timeout: Outcome
    concurrent: Outcome[]
    connector: { result: unknown; error?: string }
  }
>

describe('createCodeTool (AI SDK) over the cordon executor, in Node through ./register', () => {
  let report: Report

  beforeAll(async () => {
    const { stdout } = await run(process.execPath, ['--no-node-snapshot', '--import', register, fixture], { cwd: packageDir })
    report = JSON.parse(stdout) as Report
  }, 60_000)

  it('does not load without the registration', async () => {
    const load = run(process.execPath, ['--input-type=module', '-e', "await import('@cloudflare/codemode/ai')"], { cwd: packageDir })
    await expect(load).rejects.toMatchObject({ stderr: expect.stringMatching(/cloudflare:/) as unknown })
  })

  it.each(['ivm', 'quickjs', 'subprocess'])('runs the model’s code with AI SDK tools on %s', (backend) => {
    const r = report[backend]!
    expect(r.describes).toBe(true)
    expect(r.calls).toEqual({ output: { result: { city: 'Paris', tempC: 5 }, logs: ['got 5', '[error] oops'] } })
    expect(r.binary).toEqual({ output: { result: { r: { bytes: [3, 2, 1] }, isBytes: true } } })
    expect(r.invalid.threw).toMatch(/^Code execution failed: ZodError: .*Invalid input: expected string/s)
    expect(r.toolError).toEqual({ threw: 'Code execution failed: upstream is down' })
    expect(r.caught).toEqual({ output: { result: 'upstream is down' } })
    expect(r.thrown).toEqual({ threw: 'Code execution failed: TypeError: not a number' })
    expect(r.timeout.threw).toMatch(/^Code execution failed: Execution timed out/)
    expect(r.concurrent).toEqual([{ output: { result: 'Oslo' } }, { output: { result: 'Lima' } }])
    // A ToolSetConnector (a WorkerEntrypoint, on the stand-in) answering a connector's calls.
    expect(r.connector).toEqual({ result: { city: 'Rome', tempC: 4 }, logs: [] })
  })
})
