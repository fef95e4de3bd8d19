// What scripts/measure.mjs imports in the page: a sandbox of its own, apart from the playground's.
import { createSandbox as createCoreSandbox, type Sandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

export function createSandbox(): Sandbox {
  return createCoreSandbox(createQuickJSBackend(), { maxToolCalls: 1_000 })
}
