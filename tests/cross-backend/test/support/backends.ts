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
// The subprocess backend three times: isolates in engine children (its default where isolated-vm
// loads), QuickJS in engine children, and a fresh node:vm child per run.
export const BACKEND_NAMES = ['ivm', 'quickjs', 'quickjs-inline', 'subprocess', 'subprocess-quickjs', 'subprocess-node-vm'] as const
export type BackendName = (typeof BACKEND_NAMES)[number]
export type Sandboxes = Record<BackendName, Sandbox>

export function openSandboxes(): Sandboxes {
  return {
    ivm: createSandbox(createIvmBackend()),
    quickjs: createSandbox(createQuickJSBackend()),
    'quickjs-inline': createSandbox(createQuickJSBackend({ thread: 'inline' })),
    subprocess: createSandbox(createSubprocessBackend()),
    'subprocess-quickjs': createSandbox(createSubprocessBackend({ engine: 'quickjs' })),
    'subprocess-node-vm': createSandbox(createSubprocessBackend({ engine: 'node-vm' })),
  }
}

export async function closeSandboxes(sandboxes: Sandboxes | undefined): Promise<void> {
  if (sandboxes === undefined) return
  await Promise.all(BACKEND_NAMES.map((name) => sandboxes[name].dispose()))
}
