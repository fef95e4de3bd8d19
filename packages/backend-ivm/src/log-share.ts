/** Room for the console entries a guest stores between two reads (UTF-16 code units, 2 bytes each). */
const SHARE_UNITS = 32 * 1024
/** Code units turned into a string per call of String.fromCharCode (an argument list has its limits). */
const DECODE_CHUNK = 8 * 1024

/**
 * The host's end of the memory a guest stores its console entries in (guest/log-store.ts). Read
 * on every synchronous `log` callback (the guest waits, so the space is then reset) and when the
 * run is stopped from outside (the guest may still be writing: only what it published is read).
 */
export class LogShareReader {
  readonly share = new SharedArrayBuffer(8 + 2 * SHARE_UNITS)
  private readonly head = new Int32Array(this.share, 0, 1)
  private readonly units = new Uint16Array(this.share, 8)
  private read = 0

  /** What was stored since the last read; with `reset`, the space is emptied for the guest. */
  take(reset: boolean): string {
    const end = Atomics.load(this.head, 0)
    let text = ''
    for (let at = this.read; at < end; at += DECODE_CHUNK) {
      text += String.fromCharCode(...this.units.subarray(at, Math.min(end, at + DECODE_CHUNK)))
    }
    if (reset) {
      Atomics.store(this.head, 0, 0)
      this.read = 0
    } else this.read = end
    return text
  }
}
