// The far side of the raw contenders' links (raw-link.mjs is the host's side), shared by the
// children raw-node-child.cjs and raw-ivm-child.cjs (JSON lines over stdio) and by the worker
// raw-quickjs-worker-thread.mjs (postMessage): a request in, `{ call, arg }` out for a tool call
// and `{ reply, value }` back in for its answer. `run(request, echo, send)` handles each request.
'use strict'
const { createInterface } = require('node:readline')

/** `send(message)` posts to the host; returns what handles each message from it. */
function serveLink(run, send) {
  const waiting = new Map()
  let nextCall = 0
  const echo = (arg) => {
    const call = nextCall++
    return new Promise((resolve) => {
      waiting.set(call, resolve)
      send({ call, arg })
    })
  }
  return (message) => {
    if (message.reply === undefined) return void run(message, echo, send)
    const resolve = waiting.get(message.reply)
    waiting.delete(message.reply)
    resolve(message.value)
  }
}

/** The link over this process's stdio, one JSON message per line. */
function serveStdio(run) {
  const receive = serveLink(run, (message) => process.stdout.write(JSON.stringify(message) + '\n'))
  createInterface({ input: process.stdin }).on('line', (line) => receive(JSON.parse(line)))
}

module.exports = { serveLink, serveStdio }
