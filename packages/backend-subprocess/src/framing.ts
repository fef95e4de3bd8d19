/**
 * Length-prefixed frames between the host and a child: a 4-byte big-endian body length,
 * then the body, a UTF-8 JSON array. Shared by both sides (the child bundles it).
 *
 * The reader enforces a size cap before buffering a body, so a hostile child cannot make
 * the host allocate more than the cap, and it stops for good after the first bad frame.
 */

const HEADER_BYTES = 4

export function encodeFrame(message: readonly unknown[]): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8')
  const frame = Buffer.allocUnsafe(HEADER_BYTES + body.length)
  frame.writeUInt32BE(body.length, 0)
  body.copy(frame, HEADER_BYTES)
  return frame
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
        message = JSON.parse(body.toString('utf8'))
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
