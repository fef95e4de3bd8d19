import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cordon } from './helpers.js'

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url))

describe('the cordon command', () => {
  it('--help lists the commands, examples and exit codes', async () => {
    const r = await cordon(['--help'])
    expect(r.code).toBe(0)
    for (const text of ['run [options] [file]', 'doctor', 'repl', 'Exit codes:', '130  interrupted by Ctrl-C'])
      expect(r.stdout).toContain(text)
    const run = await cordon(['run', '--help'])
    expect(run.code).toBe(0)
    for (const flag of [
      '--backend',
      '--timeout',
      '--memory',
      '--max-output',
      '--max-tool-calls',
      '--globals',
      '--tools',
      '--json',
      'Exit codes:',
    ]) {
      expect(run.stdout).toContain(flag)
    }
  })

  it('--version prints the version', async () => {
    expect(await cordon(['--version'])).toMatchObject({ code: 0, stdout: '0.0.0\n' })
  })

  it('no command, or an unknown one, is a usage error (exit 2)', async () => {
    const none = await cordon([])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('Usage: cordon')
    const unknown = await cordon(['rnu'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("unknown command 'rnu'")
    expect(unknown.stderr).toContain('(Did you mean run?)')
  })

  it('repl --fresh runs each entry as its own program; an unfinished entry continues on the next line', async () => {
    const input = '1 + 1\nconsole.log("hi")\nconst x = 40 +\n2; x\nx\n.exit\n99\n'
    const r = await cordon(['repl', '-b', 'quickjs', '--fresh'], { input })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('2\nhi\n42\n')
    // Nothing carries over between entries: each is a fresh sandbox (test/repl.test.ts has the rest).
    expect(r.stderr).toMatch(/^RUNTIME_ERROR: ReferenceError: .*x.*\n/)
  })

  it("the README's commands work as written, from the repo root", async () => {
    const hello = await cordon(
      ['run', 'examples/hello.ts', '--tools', 'apps/cli/examples/github-tools.mjs', '--globals', 'apps/cli/examples/globals.json'],
      { cwd: repoRoot },
    )
    expect(hello).toMatchObject({ code: 0, stderr: '' })
    expect(hello.stdout).toBe(
      "fetched 3 issues from acme/app\nbugs: [ 1, 3 ]\n{ total: 3, bugs: 2, firstBug: 'acme/app: crash on start' }\n",
    )
    const piped = await cordon(['run', '-', '--json'], { cwd: repoRoot, input: '[1, 2, 3].map((n) => n * n)\n' })
    expect(piped.code).toBe(0)
    expect(JSON.parse(piped.stdout)).toMatchObject({ ok: true, value: [1, 4, 9] })
  })
})
