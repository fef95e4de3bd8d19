// The child of the raw-ivm-child contender: a plain Node process (no lockdown) that runs each
// request in a new isolated-vm isolate. The guest's echo is a Reference whose host function
// asks the parent over stdout and waits for its reply line: the same hops as cordon's engine
// children (isolate thread → child → host → child → isolate thread), with nothing else. A
// request's `dataJson` (W4) goes into the isolate as a string; a result that is JSON text
// (`json: true`) goes back to the parent inside the reply line as it is, not escaped again.
'use strict'
const { serveStdio } = require('./stdio-child-link.cjs')

const ivm = require(process.argv[2])

serveStdio(async (request, echo, send) => {
  const isolate = new ivm.Isolate({ memoryLimit: 128 })
  try {
    const context = await isolate.createContext()
    await context.global.set('echo', new ivm.Reference(echo))
    if (request.dataJson !== undefined) await context.global.set('dataJson', request.dataJson)
    const value = await context.eval(`(async () => { ${request.code} })()`, { promise: true, copy: true })
    if (request.json === true && typeof value === 'string') {
      process.stdout.write('{"id":' + JSON.stringify(request.id) + ',"ok":true,"value":' + value + ',"logs":[]}\n')
    } else send({ id: request.id, ok: true, value, logs: [] })
  } catch (error) {
    send({ id: request.id, ok: false, error: String(error) })
  } finally {
    isolate.dispose()
  }
})
