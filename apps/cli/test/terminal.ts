import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { CLI, cliEnv } from './helpers.js'

/** Whether tmux can be run here: the terminal tests need it. */
export const HAS_TMUX = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0

/** Longest wait for the screen to show something; a loaded machine is slow, never this slow. */
const WAIT_MS = 20_000
const POLL_MS = 50

export interface TerminalOptions {
  cwd?: string
  env?: Record<string, string>
}

/**
 * `cordon …args` in a real terminal: a detached tmux session of its own (its own server and
 * socket), wide enough that no line wraps. Keys go in with send-keys; the screen comes back with
 * capture-pane. When the CLI ends, `[exited N]` is printed and the pane stays readable.
 */
export class Terminal {
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'cordon-tty-'))
  private readonly socket = path.join(this.dir, 'tmux.sock')

  constructor(args: readonly string[], options: TerminalOptions = {}) {
    const script = `"$@"; echo "[exited $?]"; exec sleep 600`
    this.tmux(
      ['-f', '/dev/null', 'new-session', '-d', '-s', 'repl', '-x', '200', '-y', '50'],
      ['-c', options.cwd ?? process.cwd(), 'sh', '-c', script, 'sh', process.execPath, CLI, ...args],
      withoutTmux(cliEnv({ HOME: this.dir, ...options.env })),
    )
  }

  /** Types text as it is (no key names); Enter is `press('Enter')`. */
  type(text: string): void {
    // tmux reads an argument that ends in `;` as the end of a command.
    if (text.endsWith(';')) throw new Error('type() cannot end with ";"')
    this.tmux(['send-keys', '-t', 'repl', '-l', '--'], [text])
  }

  /** Keys by tmux's names: Enter, Tab, Up, C-c, C-d. */
  press(...keys: string[]): void {
    for (const key of keys) this.tmux(['send-keys', '-t', 'repl'], [key])
  }

  /** Every line written so far (scrollback included), trailing blanks removed. */
  screen(): string[] {
    const text = this.tmux(['capture-pane', '-p', '-J', '-t', 'repl', '-S', '-'], [])
    const lines = text.split('\n').map((line) => line.trimEnd())
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
    return lines
  }

  /** Polls the screen until `ready(lines)` holds; fails with the screen shown. */
  async waitFor(what: string, ready: (lines: string[]) => boolean): Promise<string[]> {
    const deadline = Date.now() + WAIT_MS
    for (;;) {
      const lines = this.screen()
      if (ready(lines)) return lines
      // The CLI ended: nothing more will come.
      const ended = /^\[exited \d+\]$/.test(lines[lines.length - 1] ?? '')
      if (ended || Date.now() > deadline) {
        throw new Error(`${ended ? 'the CLI ended' : `waited ${WAIT_MS} ms`} before ${what}; the screen:\n${lines.join('\n')}`)
      }
      await sleep(POLL_MS)
    }
  }

  /** Waits for the last line of the screen to be `line`. */
  waitForLast(line: string): Promise<string[]> {
    return this.waitFor(`a last line ${JSON.stringify(line)}`, (lines) => lines[lines.length - 1] === line.trimEnd())
  }

  close(): void {
    this.tmux(['kill-server'], [], undefined, false)
    rmSync(this.dir, { recursive: true, force: true })
  }

  private tmux(command: string[], args: string[], env?: Record<string, string>, check = true): string {
    const r = spawnSync('tmux', ['-S', this.socket, ...command, ...args], { encoding: 'utf8', env: env ?? process.env })
    if (check && r.status !== 0) throw new Error(`tmux ${command.join(' ')} failed: ${r.stderr || r.error?.message}`)
    return r.stdout
  }
}

/** Run from inside tmux, the tests still start their own server: no TMUX variable to confuse it. */
function withoutTmux(env: Record<string, string>): Record<string, string> {
  const { TMUX: _tmux, TMUX_PANE: _pane, ...rest } = env
  return rest
}
