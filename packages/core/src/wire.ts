import { createCodec } from './guest/codec.js'
import { capturePrimordials } from './guest/primordials.js'

/** The host's instance of the value codec (the same code runs inside every guest). */
const codec = createCodec(capturePrimordials())

/** Encodes a host value to wire text; throws TypeError for values that cannot cross. */
export function encodeValue(value: unknown, budget: number, what: string): string {
  return codec.encode(value, budget, what)
}

/** Decodes wire text (untrusted) into fresh host values. Never runs guest code. */
export function decodeValue(wire: string): unknown {
  return codec.decode(wire)
}

export function isLimitMarker(error: unknown): error is { code: 'OUTPUT_LIMIT'; message: string } {
  return codec.isLimitError(error)
}

/** UTF-8 byte length without Buffer (core also runs in browsers). */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}
