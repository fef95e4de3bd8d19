// The child side of the raw contenders' stdio JSON lines, shared by raw-node-child.cjs and
// raw-ivm-child.cjs: one request per line in, `{ call, arg }` out for a tool call and
// `{ reply, value }` back in for its answer. `run(request, echo, send)` handles each request.
'use strict'
const { createInterface } = require('node:readline')

function serveStdio(run) {
  const waiting = new Map()
  let nextCall = 0
  const send = (message) => process.stdout.write(JSON.stringify(message) + '\n')
  const echo = (arg) => {
    const call = nextCall++
    return new Promise((resolve) => {
      waiting.set(call, resolve)
      send({ call, arg })
    })
  }
  createInterface({ input: process.stdin }).on('line', (line) => {
    const message = JSON.parse(line)
    if (message.reply === undefined) return void run(message, echo, send)
    const resolve = waiting.get(message.reply)
    waiting.delete(message.reply)
    resolve(message.value)
  })
}

module.exports = { serveStdio }
