import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fitsUtf8, utf8Length } from '../src/wire.js'

describe('fitsUtf8', () => {
  it('agrees with the UTF-8 byte count at every limit around it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const bytes = utf8Length(text)
        expect(bytes).toBe(
          Buffer.byteLength(text.replace(/[\ud800-\udfff]/g, (c, i: number, all: string) => (isPaired(all, i) ? c : '\ufffd'))),
        )
        for (let max = Math.max(0, bytes - 3); max <= bytes + 3; max++) expect(fitsUtf8(text, max)).toBe(bytes <= max)
      }),
    )
  })
})

function isPaired(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  if (c <= 0xdbff) return i + 1 < text.length && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff
  return i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff
}
