// What the test page loads: cordon as a web developer's bundler gives it to a page (the `browser`
// export condition), on `globalThis.cordon` for the tests' page.evaluate calls. `serve` puts the
// page's QuickJS backend on the channel protocol, for the conformance suite run from Node
// (helpers/page-backend.ts): batches come in as JSON text and go out through `cordonToNode`.
import { createSandbox } from '@cordon/core'
import { serveBackend } from '@cordon/core/backend'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

interface ToNode {
  cordonToNode(text: string): void
}

function serve(): (text: string) => void {
  const served = serveBackend(createQuickJSBackend(), {
    send: (batch) => void (globalThis as unknown as ToNode).cordonToNode(JSON.stringify(batch)),
  })
  return (text) => served.receive(JSON.parse(text))
}

Object.assign(globalThis, { cordon: { createSandbox, createQuickJSBackend, serve } })
