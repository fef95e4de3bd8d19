// The `cordon` command's entry. A `cordon run` that a running daemon of this build can serve goes
// there (daemon/daemon-client.ts); a plain one starts the engine child its sandbox will use
// (engine-start.ts), so that child's Node starts while commander and the commands load
// (program.ts).
import { runThroughDaemon } from './daemon/daemon-client.js'
import { startEngineForArgs } from './engine-start.js'

const args = process.argv.slice(2)
const served = await runThroughDaemon(args)
if (served !== undefined) process.exitCode = served
else {
  await startEngineForArgs(args)
  await import('./program.js')
}
