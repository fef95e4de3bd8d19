/**
 * The reference meaning of an async function body: the body run by `new AsyncFunction(body)` in a
 * fresh node:vm context, with console.log recorded as Node formats it. Only for bodies whose
 * values and logs are primitives, where Node's formatting and cordon's agree by design.
 */
import { format } from 'node:util'
import vm from 'node:vm'

export type RawOutcome = { compiled: false } | { compiled: true; logs: string[]; value?: unknown; thrown?: string }

export async function runRawBody(body: string): Promise<RawOutcome> {
  const logs: string[] = []
  const context = vm.createContext({ console: { log: (...args: unknown[]) => logs.push(format(...args)) } })
  let fn: () => Promise<unknown>
  try {
    fn = vm.runInContext(`new ((async function () {}).constructor)(${JSON.stringify(body)})`, context)
  } catch {
    return { compiled: false }
  }
  try {
    return { compiled: true, logs, value: await fn() }
  } catch (error) {
    return { compiled: true, logs, thrown: String((error as Error).message) }
  }
}
