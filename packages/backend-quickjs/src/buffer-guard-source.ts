import { PRIMORDIALS_SOURCE } from '@cordon/core/backend'
import { guardShrinkingBuffers } from './guest/buffer-guard.js'

/** Script evaluated in a fresh context before the length guard and the guest runtime: see buffer-guard.ts. */
export const BUFFER_GUARD_SOURCE = `(${guardShrinkingBuffers.toString()})(${PRIMORDIALS_SOURCE})`

export const BUFFER_GUARD_FILENAME = 'cordon-buffer-guard'
