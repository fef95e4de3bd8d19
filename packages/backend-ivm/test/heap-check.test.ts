import { expect, test } from 'vitest'
import { withinWait } from '../src/heap-check.js'
import type { IvmHeapStatistics } from '../src/ivm-types.js'

test('the end-of-run heap reading is waited for when a loaded machine delivers it 200 ms late', async () => {
  const stats = { used_heap_size: 1, heap_size_limit: 0 } as IvmHeapStatistics
  const reading = new Promise<IvmHeapStatistics>((resolve) => setTimeout(resolve, 200, stats))
  expect(await withinWait(reading)).toBe(stats)
})
