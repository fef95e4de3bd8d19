import { startEngineEarly } from '@cordon/select'

/**
 * Flags that may choose another backend, or need one with an inspector (run-options.ts): with
 * any of them, nothing is started before commander has read them. `-b` and `--backend` included.
 */
const CHOOSING_FLAG = /^(-b|--backend|--prefer|--inspect|--cpu-prof|-h$|--help$)/

/**
 * Before the command line is parsed: for `cordon run` without any flag that could choose another
 * backend, select's early start (which also reads CORDON_BACKEND and CORDON_DISABLE). Anything
 * else waits for the command. A guess that turns out wrong costs an engine child that ends by
 * itself; it never changes what runs.
 */
export async function startEngineForArgs(args: readonly string[]): Promise<void> {
  if (args[0] !== 'run' || args.slice(1).some((arg) => CHOOSING_FLAG.test(arg))) return
  await startEngineEarly()
}
