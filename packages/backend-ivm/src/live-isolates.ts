import type { IvmIsolate } from './ivm-types.js'

/**
 * Every isolate this process holds that is not disposed yet, so that they are all disposed when
 * the process exits. isolated-vm 7 on Node 26 ended a host that exited with isolates alive
 * (a session open, the pool's next isolate being prepared) with SIGSEGV now and then, instead of
 * its exit code: their threads were still at work while Node tore the process down. Disposing
 * them in 'exit' stops that work before the teardown. Process-wide, as the process's exit is.
 */
const live = new Set<IvmIsolate>()
let listening = false

export function trackIsolate(isolate: IvmIsolate): void {
  live.add(isolate)
  if (listening) return
  listening = true
  process.once('exit', disposeLiveIsolates)
}

export function forgetIsolate(isolate: IvmIsolate): void {
  live.delete(isolate)
}

function disposeLiveIsolates(): void {
  for (const isolate of live) {
    try {
      // At exit there is no waiting for inspector sessions to end in order (engine-inspector.ts).
      if (!isolate.isDisposed) isolate.dispose()
    } catch {
      // Disposed meanwhile: gone either way.
    }
  }
  live.clear()
}
