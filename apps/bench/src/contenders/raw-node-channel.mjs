// A plain Node child (raw-node-child.cjs) and newline-delimited JSON over its stdio: the least a
// host needs to run code in another process. No sandboxing at all; this is the floor.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { RawLink } from './raw-link.mjs'

const CHILD = new URL('./raw-node-child.cjs', import.meta.url).pathname

export class NodeChild {
  #proc
  #link
  exited

  /** `echo` answers the child's tool calls; `argv` replaces the default child script and its arguments. */
  constructor(echo = (value) => value, argv = [CHILD]) {
    this.#proc = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'inherit'] })
    this.#link = new RawLink((message) => this.#proc.stdin.write(JSON.stringify(message) + '\n'), echo)
    this.exited = new Promise((resolve) => this.#proc.once('close', resolve))
    this.#proc.once('close', () => this.#link.failAll(new Error('the child exited')))
    createInterface({ input: this.#proc.stdout }).on('line', (line) => this.#link.receive(JSON.parse(line)))
  }

  /**
   * Runs `code` (an async function body with `echo`, `log` and `data` in scope) and resolves
   * `{ value, logs }`. `json`: the result is JSON text the child passes on as it is (raw-ivm-child).
   */
  run(code, dataJson, json) {
    return this.#link.request({ code, dataJson, json })
  }

  /** Closes stdin, which lets the child exit, and waits until it has. */
  async close() {
    this.#proc.stdin.end()
    await this.exited
  }
}
