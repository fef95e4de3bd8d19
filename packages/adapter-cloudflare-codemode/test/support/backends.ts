import { createIvmBackend } from '@cordon/backend-ivm'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createSubprocessBackend } from '@cordon/backend-subprocess'
import type { SandboxBackend } from '@cordon/core/backend'

/** Every backend the executor is tested on (ivm needs --no-node-snapshot: see vitest.config.ts). */
export const BACKENDS: [string, () => SandboxBackend][] = [
  ['ivm', () => createIvmBackend()],
  ['quickjs', () => createQuickJSBackend()],
  ['subprocess', () => createSubprocessBackend()],
]
