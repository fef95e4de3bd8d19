import { spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, GITHUB_TOOLS, READY_TOOLS, cliEnv, cordon, tempDir } from './helpers.js'
import { REPO_ROOT, readmeTranscript } from './readme-transcript.js'

// `cordon repl` without a terminal: entries on stdin, no prompts, output as it comes.
const dir = tempDir({
  'tools.mjs': GITHUB_TOOLS,
  'ready-tools.mjs': READY_TOOLS,
  'setup.ts': 'const base: number = 40\nfunction add(n: number) {\n  return base + n\n}\n',
  'broken.js': 'const ok = 1\nok.x.y\n',
  'globals.json': '{ "repo": "acme/app" }',
})
const file = (name: string): string => path.join(dir, name)
const BACKENDS = [
  // The default: whatever `auto` chooses here (subprocess wherever Node can run it).
  { name: 'the default backend', args: [] as string[] },
  { name: 'QuickJS', args: ['--backend', 'quickjs'] },
]
const NEW_SESSION = /\(the session ended: (\w+); a new session is open, and what earlier entries defined is gone\)/g

/** Runs the REPL with stdout and stderr in one file, so that their lines keep their order. */
async function replMerged(args: readonly string[], input: string, cwd: string): Promise<{ code: number | null; output: string }> {
  const out = path.join(dir, `merged-${Math.random().toString(36).slice(2)}.txt`)
  const fd = openSync(out, 'w')
  const child = spawn(process.execPath, [CLI, 'repl', ...args], { cwd, env: cliEnv(), stdio: ['pipe', fd, fd] })
  closeSync(fd)
  child.stdin!.end(input)
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', resolve)
  })
  return { code, output: readFileSync(out, 'utf8') }
}

describe.each(BACKENDS)('cordon repl on $name', ({ args }) => {
  it("replays the README's transcript: state persists, unfinished entries go on, errors have positions", async () => {
    const transcript = readmeTranscript()
    const r = await replMerged([...transcript.args.slice(1), ...args], transcript.input.join('\n') + '\n', REPO_ROOT)
    expect(r.output).toBe(transcript.output.join('\n') + '\n')
    expect(r.code).toBe(0)
  })

  it('goes on after an unfinished template, string, comment or TypeScript signature; reports a real error at once', async () => {
    const input = [
      'const greeting = `hello',
      '${"world"}`',
      "const long = 'a\\",
      "b'",
      '/* a comment',
      '   over lines */ long + greeting.length',
      'function twice(n: number): number {',
      '  return n * 2',
      '}',
      'twice(21)',
      'const broken = [1, 2',
      '.break',
      'typeof broken',
      '}',
      'twice(1)',
      '',
    ].join('\n')
    const r = await cordon(['repl', ...args], { input })
    expect(r.stdout).toBe("'ab11'\n42\n'undefined'\n2\n")
    // The stray `}` is reported with its place, and the REPL goes on.
    expect(r.stderr).toBe('SYNTAX_ERROR: SyntaxError: Unexpected token\n    at [repl]:1:1\n  1 | }\n    | ^\n')
    expect(r.code).toBe(0)
  })

  it('Ctrl-C (SIGINT) stops the running entry; its session ends and a new one is opened', async () => {
    const input = ['const kept = 1', 'await test.ready(); while (true) {}', 'typeof kept', 'const kept = 2', 'kept', ''].join('\n')
    const r = await cordon(['repl', '--tools', file('ready-tools.mjs'), ...args], {
      input,
      onStderr: (child, stderr) => {
        if (stderr === 'guest-running\n') child.kill('SIGINT')
      },
    })
    expect(r.stdout).toBe("'undefined'\n2\n")
    expect(r.stderr).toMatch(/^guest-running\nABORTED: .*\n/)
    expect([...r.stderr.matchAll(NEW_SESSION)].map((m) => m[1])).toEqual(['ABORTED'])
    expect(r.code).toBe(0)
  })

  it('.reset forgets, .save writes the entries that ran, .load runs a file into the session', async () => {
    const saved = file(`saved-${args.length}.js`)
    const input = [
      'const base = 20',
      'function double(n) {',
      '  return n * 2',
      '}',
      'nope()',
      '[base, double(base)]',
      `.save ${saved}`,
      '.reset',
      'typeof base',
      `.load ${saved}`,
      'double(base) + 2',
      `.load ${file('setup.ts')}`,
      'add(2)',
      `.load ${file('broken.js')}`,
      '',
    ].join('\n')
    const r = await cordon(['repl', ...args], { input })
    expect(readFileSync(saved, 'utf8')).toBe('const base = 20\nfunction double(n) {\n  return n * 2\n}\n;[base, double(base)]\n')
    expect(r.stdout).toBe(
      [
        '[ 20, 40 ]',
        `saved 3 entries to ${saved}`,
        'a new session is open: what earlier entries defined is gone',
        "'undefined'",
        '[ 20, 40 ]',
        '42',
        '42',
        '',
      ].join('\n'),
    )
    expect(r.stderr).toMatch(/^RUNTIME_ERROR: ReferenceError: .*nope/)
    // A loaded file's errors point into the file as written.
    expect(r.stderr).toContain(`RUNTIME_ERROR: TypeError`)
    expect(r.stderr).toContain(`at ${file('broken.js')}:2:`)
    expect(r.stderr).toContain('  2 | ok.x.y')
    expect(r.code).toBe(0)
  })

  it('gives the session --tools and --globals; .tools lists the signatures', async () => {
    const input = ['const issues = await github.listIssues({ repo })', 'issues.length', '.tools', ''].join('\n')
    const r = await cordon(['repl', '--tools', file('tools.mjs'), '--globals', file('globals.json'), ...args], { input })
    expect(r).toMatchObject({ code: 0, stderr: '' })
    expect(r.stdout).toBe('2\ngithub.listIssues(args: { repo: string }): Promise<unknown>\n    List the open issues of a repository\n')
  })
})

describe('cordon repl on QuickJS: limits, --fresh, commands', () => {
  it('a deadline or running out of memory ends the session; the REPL says so and goes on in a new one', async () => {
    const input = [
      'globalThis.kept = 1',
      'const xs = []; while (true) xs.push("x".repeat(1000) + xs.length)',
      'typeof kept',
      'globalThis.kept = 2',
      'while (true) {}',
      'typeof kept',
      '',
    ].join('\n')
    const r = await cordon(['repl', '-b', 'quickjs', '--memory', '16', '--timeout', '2000'], { input })
    expect(r.stdout).toBe("1\n'undefined'\n2\n'undefined'\n")
    expect([...r.stderr.matchAll(NEW_SESSION)].map((m) => m[1])).toEqual(['MEMORY_LIMIT', 'TIMEOUT'])
    expect(r.code).toBe(0)
  })

  it('--fresh runs each entry alone; .reset has nothing to do', async () => {
    const r = await cordon(['repl', '-b', 'quickjs', '--fresh'], { input: 'const x = 1\nx\n.reset\n' })
    expect(r.stdout).toBe('every entry already runs in a fresh sandbox (--fresh): nothing to reset\n')
    expect(r.stderr).toMatch(/^RUNTIME_ERROR: ReferenceError: .*x.*\n/)
  })

  it('--fetch-allow needs --fresh: sessions have no fetch', async () => {
    const r = await cordon(['repl', '-b', 'quickjs', '--fetch-allow', 'https://example.com'], { input: '' })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--fetch-allow needs --fresh')
  })

  it('reports an entry the input left unfinished, unknown commands, and lists its commands', async () => {
    const r = await cordon(['repl', '-b', 'quickjs'], { input: '.nope\n.help\n.tools\nfunction f() {\n  return 1' })
    expect(r.stderr).toMatch(
      /^cordon: unknown command \.nope \(\.help lists them\)\nSYNTAX_ERROR: SyntaxError: Unexpected token\n {4}at \[repl\]:2:11\n/,
    )
    for (const command of ['.help', '.tools', '.load FILE', '.save FILE', '.reset', '.break', '.exit']) expect(r.stdout).toContain(command)
    expect(r.stdout).toContain('no tools: give some with --tools <module>')
    expect(r.code).toBe(0)
  })
})
