// A plain Node child (raw-node-child.cjs) and newline-delimited JSON over its stdio: the least a
// host needs to run code in another process. No sandboxing at all; this is the floor.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

const CHILD = new URL('./raw-node-child.cjs', import.meta.url).pathname

export class NodeChild {
  #proc
  #pending = new Map()
  #nextId = 0
  #echo
  exited

  /** `echo` answers the child's tool calls; `argv` replaces the default child script and its arguments. */
  constructor(echo = (value) => value, argv = [CHILD]) {
    this.#echo = echo
    this.#proc = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'inherit'] })
    this.exited = new Promise((resolve) => this.#proc.once('close', resolve))
    this.#proc.once('close', () => this.#failAll(new Error('the child exited')))
    createInterface({ input: this.#proc.stdout }).on('line', (line) => this.#receive(JSON.parse(line)))
  }

  /**
   * Runs `code` (an async function body with `echo`, `log` and `data` in scope) and resolves
   * `{ value, logs }`. `json`: the result is JSON text the child passes on as it is (raw-ivm-child).
   */
  run(code, dataJson, json) {
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      this.#proc.stdin.write(JSON.stringify({ id, code, dataJson, json }) + '\n')
    })
  }

  /** Closes stdin, which lets the child exit, and waits until it has. */
  async close() {
    this.#proc.stdin.end()
    await this.exited
  }

  #receive(message) {
    if (message.call !== undefined) {
      Promise.resolve(this.#echo(message.arg)).then((value) =>
        this.#proc.stdin.write(JSON.stringify({ reply: message.call, value }) + '\n'),
      )
      return
    }
    const waiter = this.#pending.get(message.id)
    this.#pending.delete(message.id)
    if (message.ok) waiter.resolve(message)
    else waiter.reject(new Error(message.error))
  }

  #failAll(error) {
    for (const waiter of this.#pending.values()) waiter.reject(error)
    this.#pending.clear()
  }
}
