// The child of the raw-ivm-child contender: a plain Node process (no lockdown) that runs each
// request in a new isolated-vm isolate. The guest's echo is a Reference whose host function
// asks the parent over stdout and waits for its reply line: the same hops as cordon's engine
// children (isolate thread → child → host → child → isolate thread), with nothing else.
'use strict'
const { serveStdio } = require('./stdio-child-link.cjs')

const ivm = require(process.argv[2])

serveStdio(async (request, echo, send) => {
  const isolate = new ivm.Isolate({ memoryLimit: 128 })
  try {
    const context = await isolate.createContext()
    await context.global.set('echo', new ivm.Reference(echo))
    const value = await context.eval(`(async () => { ${request.code} })()`, { promise: true, copy: true })
    send({ id: request.id, ok: true, value, logs: [] })
  } catch (error) {
    send({ id: request.id, ok: false, error: String(error) })
  } finally {
    isolate.dispose()
  }
})
