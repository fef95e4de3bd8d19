import type { CpuProfile } from '@cordon/core'

/** The hot function of the profiled programs, on lines 1–3. */
export const FIB = ['function fib(n) {', '  return n < 2 ? n : fib(n - 1) + fib(n - 2)', '}'].join('\n')

/** Spends ~300 ms in `fib`, so a profile samples it, and ends with `true`. */
export const HOT_PROGRAM = [
  FIB,
  'let total = 0',
  'const until = Date.now() + 300',
  'while (Date.now() < until) total += fib(18)',
  'total > 0',
].join('\n')

/** The profile's frames of the function named `name`. */
export function hotFunctionFrames(profile: CpuProfile, name: string): CpuProfile['nodes'] {
  return profile.nodes.filter((node) => node.callFrame.functionName === name)
}
