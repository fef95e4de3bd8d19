import { PRIMORDIALS_SOURCE } from '@cordon/core/backend'
import { guardShrinkingBuffers } from './guest/buffer-guard.js'
import { refuseGrowableSharedBuffers } from './guest/shared-buffer-guard.js'

/**
 * Script evaluated in a fresh context before the length guard and the guest runtime: see
 * buffer-guard.ts and shared-buffer-guard.ts. One capture of the primordials serves both.
 */
export const BUFFER_GUARD_SOURCE = `((p) => { (${guardShrinkingBuffers.toString()})(p); (${refuseGrowableSharedBuffers.toString()})(p) })(${PRIMORDIALS_SOURCE})`

export const BUFFER_GUARD_FILENAME = 'cordon-buffer-guard'
