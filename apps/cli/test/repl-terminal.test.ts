import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { GITHUB_TOOLS, READY_TOOLS, tempDir } from './helpers.js'
import { CONTINUATION, PROMPT, REPO_ROOT, onBackend, readmeTranscript } from './readme-transcript.js'
import { HAS_TMUX, Terminal } from './terminal.js'

// `cordon repl` at a real terminal: tmux runs it in a pseudo-terminal, the test types keys and
// reads the screen. Every wait is for something to appear on the screen, bounded, never a sleep.
const dir = tempDir({ 'tools.mjs': GITHUB_TOOLS, 'ready-tools.mjs': READY_TOOLS })
const BACKENDS = [
  // The default: whatever `auto` chooses here (subprocess wherever Node can run it).
  { name: 'the default backend', args: [] as string[] },
  { name: 'QuickJS', args: ['--backend', 'quickjs'] },
]
const EMPTY_PROMPT = PROMPT.trimEnd()
const EMPTY_CONTINUATION = CONTINUATION.trimEnd()

let terminal: Terminal | undefined
const open = (args: string[], env: Record<string, string> = {}, cwd = dir): Terminal => {
  terminal = new Terminal(['repl', ...args], { cwd, env: { CORDON_REPL_HISTORY: path.join(dir, 'unused-history'), ...env } })
  return terminal
}
afterEach(() => {
  terminal?.close()
  terminal = undefined
})

/** The banner names the backend: read it from the screen. */
async function started(t: Terminal): Promise<string> {
  const lines = await t.waitFor('the banner and a prompt', (screen) => screen.length >= 2 && screen[screen.length - 1] === EMPTY_PROMPT)
  return /^cordon repl on (\w+)/.exec(lines[0]!)?.[1] ?? 'unknown'
}

describe.skipIf(!HAS_TMUX).each(BACKENDS)('cordon repl in a terminal, on $name', ({ args }) => {
  it("shows the README's transcript as written: prompts, continuation prompts, values, errors", async () => {
    const transcript = readmeTranscript()
    const t = open([...transcript.args.slice(1), ...args], {}, REPO_ROOT)
    const backend = await started(t)
    const expected = transcript.screen.map((line) => onBackend(line, backend).trimEnd())
    const promptLines = expected.flatMap((line, i) => (line.startsWith(EMPTY_PROMPT) || line.startsWith(EMPTY_CONTINUATION) ? [i] : []))
    for (const [n, at] of promptLines.entries()) {
      t.type(transcript.input[n]!)
      t.press('Enter')
      const next = promptLines[n + 1]
      // Everything up to the next prompt, and that prompt, empty: the REPL is waiting again.
      const want =
        next === undefined
          ? [...expected, '[exited 0]']
          : [...expected.slice(0, next), expected[next]!.startsWith(EMPTY_PROMPT) ? EMPTY_PROMPT : EMPTY_CONTINUATION]
      await t.waitFor(`the screen after line ${at + 1} of the transcript`, (lines) => sameLines(lines, want))
    }
  })

  it('Tab completes globals, members and tool names; Ctrl-C stops an entry, drops a line; Ctrl-D leaves', async () => {
    const history = path.join(dir, `history-${args.length}`)
    writeFileSync(history, "'from an earlier REPL'\n")
    const t = open(['--tools', 'tools.mjs', '--tools', 'ready-tools.mjs', ...args], { CORDON_REPL_HISTORY: history })
    await started(t)

    // Up recalls the history file; Ctrl-C leaves that line on screen and gives a fresh prompt.
    t.press('Up')
    await t.waitForLast(`${PROMPT}'from an earlier REPL'`)
    t.press('C-c')
    await t.waitFor(
      'a fresh prompt under the dropped line',
      (lines) => lines.slice(-2).join('\n') === `${PROMPT}'from an earlier REPL'\n${EMPTY_PROMPT}`,
    )

    t.type('const numbers = [1, 2, 3]')
    t.press('Enter')
    await t.waitForLast(EMPTY_PROMPT)
    t.type('numb')
    t.press('Tab')
    await t.waitForLast(`${PROMPT}numbers`)
    t.type('.ma')
    t.press('Tab')
    await t.waitForLast(`${PROMPT}numbers.map`)
    t.type('((n) => n * 10)')
    t.press('Enter')
    await t.waitFor('the mapped array', (lines) => lines.slice(-2).join('\n') === `[ 10, 20, 30 ]\n${EMPTY_PROMPT}`)

    // Tool namespaces and names come from --tools.
    t.type('githu')
    t.press('Tab')
    await t.waitForLast(`${PROMPT}github`)
    t.type('.li')
    t.press('Tab')
    await t.waitForLast(`${PROMPT}github.listIssues`)
    t.press('C-c')
    await t.waitForLast(EMPTY_PROMPT)

    // Ctrl-C stops a running entry; the stop ends the session, and a new one takes over.
    t.type('await test.ready(); while (true) {}')
    t.press('Enter')
    await t.waitForLast('guest-running')
    t.press('C-c')
    const stopped = await t.waitFor(
      'the stop and the new session',
      (lines) => lines.slice(-2)[0]?.includes('a new session is open') === true,
    )
    expect(stopped.slice(-3)[0]).toMatch(/^ABORTED: /)
    expect(stopped.at(-1)).toBe(EMPTY_PROMPT)
    t.type('typeof numbers')
    t.press('Enter')
    await t.waitFor('the new session', (lines) => lines.slice(-2).join('\n') === `'undefined'\n${EMPTY_PROMPT}`)

    // Ctrl-C drops an unfinished entry.
    t.type('function f() {')
    t.press('Enter')
    await t.waitForLast(EMPTY_CONTINUATION)
    t.press('C-c')
    await t.waitFor('a prompt after the dropped entry', (lines) => lines.slice(-2).join('\n') === `${EMPTY_CONTINUATION}\n${EMPTY_PROMPT}`)

    // Ctrl-C on an empty line says how to leave; Ctrl-D leaves.
    t.press('C-c')
    await t.waitFor('the hint', (lines) => lines.at(-2)?.startsWith('(To exit, press Ctrl-C again') === true)
    t.press('C-d')
    await t.waitForLast('[exited 0]')

    // The history file holds what was typed, oldest first, behind what it held before.
    const saved = readFileSync(history, 'utf8').split('\n')
    expect(saved.slice(0, 3)).toEqual(["'from an earlier REPL'", 'const numbers = [1, 2, 3]', 'numbers.map((n) => n * 10)'])
    expect(saved).toContain('typeof numbers')
  })
})

describe.skipIf(!HAS_TMUX)('cordon repl in a terminal: history across REPLs', () => {
  it('recalls the lines of the last REPL with Up; Ctrl-C twice on an empty line leaves', async () => {
    const history = path.join(dir, 'history-across')
    const first = open(['-b', 'quickjs'], { CORDON_REPL_HISTORY: history })
    await started(first)
    first.type('6 * 7')
    first.press('Enter')
    await first.waitFor('the value', (lines) => lines.slice(-2).join('\n') === `42\n${EMPTY_PROMPT}`)
    first.type('.exit')
    first.press('Enter')
    await first.waitForLast('[exited 0]')
    first.close()

    const second = open(['-b', 'quickjs'], { CORDON_REPL_HISTORY: history })
    await started(second)
    second.press('Up')
    await second.waitForLast(`${PROMPT}.exit`)
    second.press('Up')
    await second.waitForLast(`${PROMPT}6 * 7`)
    second.press('Enter')
    await second.waitFor('the value again', (lines) => lines.slice(-2).join('\n') === `42\n${EMPTY_PROMPT}`)
    second.press('C-c')
    await second.waitFor('the hint', (lines) => lines.at(-2)?.startsWith('(To exit, press Ctrl-C again') === true)
    second.press('C-c')
    await second.waitForLast('[exited 0]')
  })
})

function sameLines(actual: string[], expected: string[]): boolean {
  return actual.length === expected.length && actual.every((line, i) => line === expected[i])
}
