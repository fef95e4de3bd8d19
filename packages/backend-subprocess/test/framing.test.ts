import { describe, expect, it } from 'vitest'
import { FrameReader, encodeFrame } from '../src/framing.js'
import { parseChildMessage } from '../src/messages.js'

function reader(cap = 1024) {
  const frames: unknown[][] = []
  const violations: string[] = []
  const r = new FrameReader(cap, { frame: (f) => frames.push(f), violation: (v) => violations.push(v) })
  return { r, frames, violations }
}

describe('FrameReader', () => {
  it('reassembles frames split at any byte and several frames in one chunk', () => {
    const bytes = Buffer.concat([encodeFrame(['log', 'log', 'héllo']), encodeFrame(['ready']), encodeFrame(['call', 1, 'a.b', '[]'])])
    for (let step = 1; step <= bytes.length; step++) {
      const { r, frames, violations } = reader()
      for (let i = 0; i < bytes.length; i += step) r.push(bytes.subarray(i, i + step))
      expect(violations).toEqual([])
      expect(frames).toEqual([['log', 'log', 'héllo'], ['ready'], ['call', 1, 'a.b', '[]']])
    }
  })

  it('refuses a frame over the cap from its header alone, then ignores everything', () => {
    const { r, frames, violations } = reader(10)
    r.push(Buffer.from([0, 0, 0, 11]))
    r.push(encodeFrame(['ready']))
    expect(violations).toHaveLength(1)
    expect(frames).toEqual([])
  })

  it('refuses bodies that are not JSON arrays with a kind', () => {
    for (const body of ['{', '{"a":1}', '[1]', '"x"']) {
      const { r, violations } = reader()
      const head = Buffer.alloc(4)
      head.writeUInt32BE(Buffer.byteLength(body))
      r.push(Buffer.concat([head, Buffer.from(body)]))
      expect(violations, body).toHaveLength(1)
    }
  })
})

describe('parseChildMessage', () => {
  it('accepts the exact shapes only', () => {
    expect(parseChildMessage(['log', 'w1:x'])).toEqual({ kind: 'log', entries: 'w1:x' })
    expect(parseChildMessage(['done', 'ok', '1', 0, 1.5, 100])).toMatchObject({ kind: 'done', status: 'ok' })
    for (const bad of [
      ['log'],
      ['log', 1],
      ['log', 'warn', 'x'],
      ['call', 0, 'a', '1'],
      ['call', 1.5, 'a', '1'],
      ['call', 1, 'a', 1],
      ['done', 'maybe', '1', 0, 0, 0],
      ['done', 'ok', '1', -1, 0, 0],
      ['done', 'ok', '1', 0, Number.NaN, 0],
      ['limit', 'TOOL_CALL_LIMIT', 'x'],
      ['ready', 1],
      ['settle', 1, true, '1'],
      ['probe', null],
    ]) {
      expect(typeof parseChildMessage(bad), JSON.stringify(bad)).toBe('string')
    }
  })
})
