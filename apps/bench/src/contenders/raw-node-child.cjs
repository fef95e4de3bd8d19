// The child of the raw Node contenders: reads one JSON request per line on stdin, runs its code
// as an async function body, and writes one JSON line back. A tool call is one round trip: the
// child writes `{ call, arg }` and waits for `{ reply, value }`. CommonJS because it starts faster.
'use strict'
const { serveStdio } = require('./stdio-child-link.cjs')

const AsyncFunction = (async () => {}).constructor

serveStdio(async (request, echo, send) => {
  const lines = []
  const log = (...parts) => void lines.push(parts.join(' '))
  const data = request.dataJson === undefined ? undefined : JSON.parse(request.dataJson)
  try {
    const value = await new AsyncFunction('echo', 'log', 'data', request.code)(echo, log, data)
    send({ id: request.id, ok: true, value, logs: lines })
  } catch (error) {
    send({ id: request.id, ok: false, error: String(error) })
  }
})
