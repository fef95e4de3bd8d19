// What the test page loads: cordon as a web developer's bundler gives it to a page (the `browser`
// export condition), on `globalThis.cordon` for the tests' page.evaluate calls.
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

Object.assign(globalThis, { cordon: { createSandbox, createQuickJSBackend } })
