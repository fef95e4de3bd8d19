// The host's end of the raw contenders' request links (a child's stdio, a worker's messages):
// each request waits for the reply with its id, and a `{ call, arg }` from the far side is the
// guest's echo tool, answered here on the host's thread with `{ reply, value }`.
export class RawLink {
  #pending = new Map()
  #nextId = 0
  #echo
  #post

  /** `post(message)` sends one message to the far side; `echo` answers its tool calls. */
  constructor(post, echo = (value) => value) {
    this.#post = post
    this.#echo = echo
  }

  /** Sends `{ id, ...fields }` and resolves the far side's reply to it (rejects a failed one). */
  request(fields) {
    const id = this.#nextId++
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      this.#post({ id, ...fields })
    })
  }

  /** One message from the far side. */
  receive(message) {
    if (message.call !== undefined) {
      // The host's tool may be async, as cordon's tools may.
      Promise.resolve(this.#echo(message.arg)).then((value) => this.#post({ reply: message.call, value }))
      return
    }
    const waiter = this.#pending.get(message.id)
    this.#pending.delete(message.id)
    if (message.ok) waiter.resolve(message)
    else waiter.reject(new Error(message.error))
  }

  /** The far side is gone: every request still waiting fails with `error`. */
  failAll(error) {
    for (const waiter of this.#pending.values()) waiter.reject(error)
    this.#pending.clear()
  }
}
