// The `cordon` command's entry. A plain `cordon run` first starts the engine child its sandbox
// will use (engine-start.ts), so that child's Node starts while commander and the commands load
// (program.ts).
import { startEngineForArgs } from './engine-start.js'

await startEngineForArgs(process.argv.slice(2))
await import('./program.js')
