import type { ConformanceCheck } from '../types.js'
import { memoryLimitChecks } from './limits-memory.js'
import { sizeLimitChecks } from './limits-size.js'
import { timeLimitChecks } from './limits-time.js'

export const limitsChecks: readonly ConformanceCheck[] = [...timeLimitChecks, ...memoryLimitChecks, ...sizeLimitChecks]
