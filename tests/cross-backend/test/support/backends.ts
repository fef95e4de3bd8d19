/**
 * One sandbox per backend, shared by a test file. Each file calls `openSandboxes()` in
 * `beforeAll` and `closeSandboxes()` in `afterAll`, so backends (warm child pools, isolates,
 * WASM engines) are made once per file, not once per program.
 */
import { createSandbox, type Sandbox } from '@cordon/core'
import { createIvmBackend } from '@cordon/backend-ivm'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createSubprocessBackend } from '@cordon/backend-subprocess'

// QuickJS twice: in worker threads (its default) and on the host's thread (`thread: 'inline'`).
export const BACKEND_NAMES = ['ivm', 'quickjs', 'quickjs-inline', 'subprocess'] as const
export type BackendName = (typeof BACKEND_NAMES)[number]
export type Sandboxes = Record<BackendName, Sandbox>

export function openSandboxes(): Sandboxes {
  return {
    ivm: createSandbox(createIvmBackend()),
    quickjs: createSandbox(createQuickJSBackend()),
    'quickjs-inline': createSandbox(createQuickJSBackend({ thread: 'inline' })),
    subprocess: createSandbox(createSubprocessBackend()),
  }
}

export async function closeSandboxes(sandboxes: Sandboxes | undefined): Promise<void> {
  if (sandboxes === undefined) return
  await Promise.all(BACKEND_NAMES.map((name) => sandboxes[name].dispose()))
}
