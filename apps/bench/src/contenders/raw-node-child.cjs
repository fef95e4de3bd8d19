// The child of the raw Node contenders: reads one JSON request per line on stdin, runs its code
// as an async function body, and writes one JSON line back. A tool call is one round trip: the
// child writes `{ call, arg }` and waits for `{ reply, value }`. CommonJS because it starts faster.
'use strict'
const { createInterface } = require('node:readline')

const AsyncFunction = (async () => {}).constructor
const waiting = new Map()
let nextCall = 0

const send = (message) => process.stdout.write(JSON.stringify(message) + '\n')

function echo(arg) {
  const call = nextCall++
  return new Promise((resolve) => {
    waiting.set(call, resolve)
    send({ call, arg })
  })
}

async function run(request) {
  const lines = []
  const log = (...parts) => void lines.push(parts.join(' '))
  const data = request.dataJson === undefined ? undefined : JSON.parse(request.dataJson)
  try {
    const value = await new AsyncFunction('echo', 'log', 'data', request.code)(echo, log, data)
    send({ id: request.id, ok: true, value, logs: lines })
  } catch (error) {
    send({ id: request.id, ok: false, error: String(error) })
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line)
  if (message.reply === undefined) return void run(message)
  const resolve = waiting.get(message.reply)
  waiting.delete(message.reply)
  resolve(message.value)
})
