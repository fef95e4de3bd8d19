import { existsSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ANSI, GITHUB_TOOLS, cordon, tempDir } from './helpers.js'

const dir = tempDir({
  'hello.js': "console.log('hello', { a: 1 })\nconsole.warn('careful')\n;({ total: 3, tags: ['a'] })\n",
  // Valid JavaScript with another meaning: as JavaScript, `twice<number>(21)` is a comparison.
  'generic.ts': 'const twice = (x) => x * 2\ntwice<number>(21)\n',
  'typed.ts': 'interface Issue { id: number }\nconst issues: Issue[] = [{ id: 1 }, { id: 2 }]\nissues.length\n',
  'answer.md':
    'Here is the program:\n\n```ts\nconst xs: number[] = [1, 2, 3];\nconsole.log("summing");\nxs.reduce((a, b) => a + b, 0)\n```\n\nIt prints the sum.\n',
  'issues.js':
    'const issues = await github.listIssues({ repo })\nconsole.log(`${issues.length} issues in ${repo}`)\nissues.map((i) => i.id)\n',
  'globals.json': '{ "repo": "acme/app" }',
  'tools.mjs': GITHUB_TOOLS,
  'more-tools.mjs': "export const tools = async () => ({ 'math.add': { execute: ({ a, b }) => a + b } })\n",
  'quiet.js': "console.log('only a log')\n",
  // Waits until a file exists: the test creates it once it has read the first log line.
  'wait-tools.mjs': `import { existsSync } from 'node:fs'
export default {
  'test.waitFor': {
    execute: async ({ path }, { signal }) => {
      while (!existsSync(path) && !signal.aborted) await new Promise((resolve) => setTimeout(resolve, 10))
      return 'seen'
    },
  },
}
`,
})
const file = (name: string): string => path.join(dir, name)

describe('cordon run', () => {
  it('runs a JavaScript file: logs as written (warn on stderr), then the value like util.inspect', async () => {
    const r = await cordon(['run', file('hello.js'), '--backend', 'quickjs'])
    expect(r).toMatchObject({ code: 0, stdout: "hello { a: 1 }\n{ total: 3, tags: [ 'a' ] }\n", stderr: 'careful\n' })
  })

  it('runs a .ts file as TypeScript even where it would also parse as JavaScript', async () => {
    const r = await cordon(['run', file('generic.ts'), '-b', 'quickjs'])
    expect(r).toMatchObject({ code: 0, stdout: '42\n', stderr: '' })
    expect((await cordon(['run', file('typed.ts'), '-b', 'quickjs'])).stdout).toBe('2\n')
  })

  it('runs the code fence of a markdown answer, prose around it ignored', async () => {
    const r = await cordon(['run', file('answer.md'), '-b', 'quickjs'])
    expect(r).toMatchObject({ code: 0, stdout: 'summing\n6\n' })
  })

  it('reads the program from stdin with -, and from --eval', async () => {
    expect(await cordon(['run', '-', '-b', 'quickjs'], { input: 'const n: number = 6\nn * 7' })).toMatchObject({ code: 0, stdout: '42\n' })
    expect(await cordon(['run', '-e', '[1, 2].map((x) => x * 2)', '-b', 'quickjs'])).toMatchObject({ code: 0, stdout: '[ 2, 4 ]\n' })
  })

  it('prints nothing for an undefined value', async () => {
    expect(await cordon(['run', file('quiet.js'), '-b', 'quickjs'])).toMatchObject({ code: 0, stdout: 'only a log\n', stderr: '' })
  })

  it('gives the program --globals and --tools, paths relative to the current directory', async () => {
    const r = await cordon(['run', 'issues.js', '--globals', 'globals.json', '--tools', './tools.mjs', '-b', 'quickjs'], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stdout: '2 issues in acme/app\n[ 1, 2 ]\n', stderr: '' })
  })

  it('merges repeated --tools; a module may export `tools` as an async function', async () => {
    const r = await cordon(
      [
        'run',
        '-e',
        'await math.add({ a: (await github.listIssues({ repo: "x" })).length, b: 40 })',
        '--tools',
        'tools.mjs',
        '--tools',
        'more-tools.mjs',
        '-b',
        'quickjs',
      ],
      { cwd: dir },
    )
    expect(r).toMatchObject({ code: 0, stdout: '42\n' })
  })

  it('--json prints exactly one JSON document: the RunResult plus the backend name', async () => {
    const program =
      "console.log('x'); ({ n: 1, big: 10n, when: new Date(0), m: new Map([['k', 1]]), s: new Set([1]), gone: undefined, nan: NaN })"
    const r = await cordon(['run', '-e', program, '--json', '-b', 'quickjs'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const doc = JSON.parse(r.stdout)
    expect(Object.keys(doc).sort()).toEqual(['backend', 'logs', 'ok', 'stats', 'value'])
    expect(doc).toMatchObject({
      ok: true,
      backend: 'quickjs',
      value: { n: 1, big: '10', when: '1970-01-01T00:00:00.000Z', m: [['k', 1]], s: [1], nan: null },
      logs: [{ level: 'log', message: 'x' }],
      stats: { backend: 'quickjs', toolCalls: 0, logsDropped: 0 },
    })
    expect(doc.value).not.toHaveProperty('gone')
  })

  it('--stats prints one summary line on stderr', async () => {
    const r = await cordon(['run', '-e', '1', '--stats', '-b', 'quickjs'])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/^stats: backend quickjs, [\d.]+ ms.*0 tool calls\n$/)
  })

  it('auto picks a working backend (the strongest here) and runs tools on it', async () => {
    const r = await cordon(['run', 'issues.js', '-g', 'globals.json', '--tools', 'tools.mjs', '--json'], { cwd: dir })
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(['subprocess', 'quickjs', 'ivm']).toContain(doc.backend)
    expect(doc).toMatchObject({ ok: true, value: [1, 2], stats: { backend: doc.backend, toolCalls: 1 } })
  })

  it('--backend ivm works: the CLI restarts Node with --no-node-snapshot for it', async () => {
    const r = await cordon(['run', '-e', '6 * 7', '--json', '-b', 'ivm'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, backend: 'ivm', value: 42 })
  })

  it('prints each log line as the guest writes it, while the program is still running', async () => {
    // The program waits for a file that the test writes only once it has read "first" on stdout:
    // a CLI that printed logs at the end would never get there (and end with TIMEOUT).
    const marker = file('first-was-printed')
    const code = `console.log("first"); console.warn("also live"); const s = await test.waitFor({ path: ${JSON.stringify(marker)} }); console.log(s); 7`
    const r = await cordon(['run', '-e', code, '--tools', 'wait-tools.mjs', '--timeout', '20000', '-b', 'quickjs'], {
      cwd: dir,
      onStdout: (_child, stdout) => {
        if (stdout.includes('first\n') && !existsSync(marker)) writeFileSync(marker, '')
      },
    })
    expect(r).toMatchObject({ code: 0, stdout: 'first\nseen\n7\n', stderr: 'also live\n' })
  })

  it('--trace prints each tool call on stderr as it starts and ends, and --json keeps stdout one document', async () => {
    const code = 'await github.listIssues({ repo: "a/b" }); try { await github.listIssues({}) } catch {}; 1'
    const r = await cordon(['run', '-e', code, '--tools', 'tools.mjs', '--trace', '-b', 'quickjs'], { cwd: dir })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('1\n')
    expect(r.stderr.split('\n')).toEqual([
      expect.stringMatching(/^tool #1 github\.listIssues \(\d+ B\) …$/),
      expect.stringMatching(/^tool #1 github\.listIssues → \d+ B in [\d.]+ ms$/),
      expect.stringMatching(/^tool #2 github\.listIssues \(\d+ B\) …$/),
      expect.stringMatching(/^tool #2 github\.listIssues ✗ refused after [\d.]+ ms: Invalid arguments for tool github\.listIssues/),
      '',
    ])
    const json = await cordon(['run', '-e', code, '--tools', 'tools.mjs', '--trace', '--json', '-b', 'quickjs'], { cwd: dir })
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, value: 1, logs: [], stats: { toolCalls: 2 } })
    expect(json.stderr).toMatch(/^tool #1 github\.listIssues/)
  })

  it('colours the value on a terminal only: FORCE_COLOR forces it, NO_COLOR wins', async () => {
    expect((await cordon(['run', '-e', '1', '-b', 'quickjs'])).stdout).not.toMatch(ANSI)
    expect((await cordon(['run', '-e', '1', '-b', 'quickjs'], { env: { FORCE_COLOR: '1' } })).stdout).toMatch(ANSI)
    expect((await cordon(['run', '-e', '1', '-b', 'quickjs'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } })).stdout).toBe('1\n')
  })
})
