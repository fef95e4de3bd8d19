/**
 * Length-prefixed frames between the host and a child: a 4-byte big-endian body length, then
 * the body. Shared by both sides (the child bundles it).
 *
 * A body is a 4-byte length of a UTF-8 JSON array, that JSON, then the long strings the JSON
 * stands in for, as raw UTF-8: a run's setup and a result (a megabyte of wire text each way in
 * apps/bench W4) would otherwise be escaped into JSON and parsed back out on every hop. The JSON
 * holds `{"\u0000raw": [start, end]}` in place of each, byte offsets into the raw part.
 *
 * The reader enforces a size cap before buffering a body, so a hostile child cannot make
 * the host allocate more than the cap, and it stops for good after the first bad frame.
 */

const HEADER_BYTES = 4
const JSON_LENGTH_BYTES = 4
/** Strings this long (and well-formed: raw UTF-8 cannot carry a lone surrogate) travel raw. */
const RAW_MIN_CHARS = 16 * 1024
const RAW_KEY = '\u0000raw'

/** `String.prototype.isWellFormed` (Node 20+), missing from this project's ES lib. */
type WellFormedCheck = string & { isWellFormed(): boolean }

export function encodeFrame(message: readonly unknown[]): Buffer {
  const raws: string[] = []
  let rawBytes = 0
  const json = JSON.stringify(message, (_key, value: unknown) => {
    if (typeof value !== 'string' || value.length < RAW_MIN_CHARS || !(value as WellFormedCheck).isWellFormed()) return value
    const start = rawBytes
    rawBytes += Buffer.byteLength(value, 'utf8')
    raws.push(value)
    return { [RAW_KEY]: [start, rawBytes] }
  })
  const jsonBytes = Buffer.byteLength(json, 'utf8')
  const bodyBytes = JSON_LENGTH_BYTES + jsonBytes + rawBytes
  const frame = Buffer.allocUnsafe(HEADER_BYTES + bodyBytes)
  frame.writeUInt32BE(bodyBytes, 0)
  frame.writeUInt32BE(jsonBytes, HEADER_BYTES)
  let at = HEADER_BYTES + JSON_LENGTH_BYTES
  at += frame.write(json, at, 'utf8')
  for (const raw of raws) at += frame.write(raw, at, 'utf8')
  return frame
}

/** The message of a frame's body; throws on anything malformed. */
function decodeBody(body: Buffer): unknown {
  if (body.length < JSON_LENGTH_BYTES) throw new Error('no JSON length')
  const jsonEnd = JSON_LENGTH_BYTES + body.readUInt32BE(0)
  if (jsonEnd > body.length) throw new Error('a JSON length past the body')
  const json = body.toString('utf8', JSON_LENGTH_BYTES, jsonEnd)
  if (jsonEnd === body.length) return JSON.parse(json)
  const rawBytes = body.length - jsonEnd
  return JSON.parse(json, (_key, value: unknown) => {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, RAW_KEY)) return value
    const range = (value as Record<string, unknown>)[RAW_KEY]
    if (Object.keys(value).length !== 1 || !Array.isArray(range) || range.length !== 2) throw new Error('a malformed raw string')
    const [start, end] = range as unknown[]
    if (
      !Number.isSafeInteger(start) ||
      !Number.isSafeInteger(end) ||
      (start as number) < 0 ||
      (start as number) > (end as number) ||
      (end as number) > rawBytes
    )
      throw new Error('a raw string out of range')
    return body.toString('utf8', jsonEnd + (start as number), jsonEnd + (end as number))
  })
}

export interface FrameSink {
  frame(message: unknown[]): void
  /** The stream broke the protocol; no frame is delivered after this. */
  violation(reason: string): void
}

export class FrameReader {
  private chunks: Buffer[] = []
  private buffered = 0
  private expected = -1
  private stopped = false

  constructor(
    private maxBodyBytes: number,
    private readonly sink: FrameSink,
  ) {}

  /** Changes the cap for frames not yet started (e.g. when a run begins). */
  setMaxBodyBytes(bytes: number): void {
    this.maxBodyBytes = bytes
  }

  /** Ignore everything from now on. */
  stop(): void {
    this.stopped = true
    this.chunks = []
    this.buffered = 0
  }

  push(chunk: Buffer): void {
    if (this.stopped) return
    this.chunks.push(chunk)
    this.buffered += chunk.length
    while (!this.stopped) {
      if (this.expected < 0) {
        if (this.buffered < HEADER_BYTES) return
        const length = this.take(HEADER_BYTES).readUInt32BE(0)
        if (length > this.maxBodyBytes) {
          this.fail(`a frame of ${length} bytes is over the cap of ${this.maxBodyBytes} bytes`)
          return
        }
        this.expected = length
      }
      if (this.buffered < this.expected) return
      const body = this.take(this.expected)
      this.expected = -1
      let message: unknown
      try {
        message = decodeBody(body)
      } catch {
        this.fail('a frame is not valid JSON')
        return
      }
      if (!Array.isArray(message) || typeof message[0] !== 'string') {
        this.fail('a frame is not a message array')
        return
      }
      this.sink.frame(message)
    }
  }

  private take(length: number): Buffer {
    const first = this.chunks[0] as Buffer
    let out: Buffer
    if (first.length >= length) {
      out = first.subarray(0, length)
      if (first.length === length) this.chunks.shift()
      else this.chunks[0] = first.subarray(length)
    } else {
      out = Buffer.allocUnsafe(length)
      let offset = 0
      while (offset < length) {
        const chunk = this.chunks[0] as Buffer
        const used = Math.min(chunk.length, length - offset)
        chunk.copy(out, offset, 0, used)
        offset += used
        if (used === chunk.length) this.chunks.shift()
        else this.chunks[0] = chunk.subarray(used)
      }
    }
    this.buffered -= length
    return out
  }

  private fail(reason: string): void {
    this.stop()
    this.sink.violation(reason)
  }
}
