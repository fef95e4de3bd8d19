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
    for (const json of ['{', '{"a":1}', '[1]', '"x"']) {
      const { r, violations } = reader()
      r.push(frameOf(json))
      expect(violations, json).toHaveLength(1)
    }
    const { r, violations } = reader()
    r.push(Buffer.from([0, 0, 0, 3, 1, 2, 3]))
    expect(violations, 'a body shorter than its JSON length field').toHaveLength(1)
  })

  it('carries long strings raw, whole, and split at any chunk size', () => {
    const long = 'é"\\\n{"$":1}'.repeat(3000)
    const lone = 'a'.repeat(20_000) + '\ud800'
    const message = [
      'batch',
      [
        ['run', { setup: long, script: 'x', other: long.slice(1) }],
        ['lone', lone],
      ],
    ]
    const bytes = Buffer.concat([encodeFrame(message), encodeFrame(['ready'])])
    // Raw, not escaped: the frame is about as long as the strings' UTF-8.
    expect(bytes.length).toBeLessThan(Buffer.byteLength(long) * 2 + 20_100 * 3)
    for (const step of [1_000, 4_093, 65_536, bytes.length]) {
      const { r, frames, violations } = reader(1 << 20)
      for (let i = 0; i < bytes.length; i += step) r.push(bytes.subarray(i, i + step))
      expect(violations).toEqual([])
      expect(frames).toEqual([message, ['ready']])
    }
  })

  it('refuses raw-string stand-ins a hostile child could forge', () => {
    const raw = Buffer.from('abc')
    for (const stand of [
      '{"\\u0000raw":[0,4]}',
      '{"\\u0000raw":[2,1]}',
      '{"\\u0000raw":[-1,1]}',
      '{"\\u0000raw":[0.5,1]}',
      '{"\\u0000raw":[0,1],"x":1}',
      '{"\\u0000raw":"0-1"}',
    ]) {
      const { r, frames, violations } = reader()
      r.push(frameOf(`["log",${stand}]`, raw))
      expect(violations, stand).toHaveLength(1)
      expect(frames).toEqual([])
    }
    const { r, frames } = reader()
    r.push(frameOf('["log",{"\\u0000raw":[1,3]}]', raw))
    expect(frames).toEqual([['log', 'bc']])
  })
})

/** A frame of `json` followed by `raw` bytes, built by hand. */
function frameOf(json: string, raw = Buffer.alloc(0)): Buffer {
  const text = Buffer.from(json)
  const head = Buffer.alloc(8)
  head.writeUInt32BE(4 + text.length + raw.length, 0)
  head.writeUInt32BE(text.length, 4)
  return Buffer.concat([head, text, raw])
}

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
