import { readFileSync } from 'node:fs'
import { Command, InvalidArgumentError } from 'commander'
import { startServer } from './start-server.js'

const TOKEN_ENV = 'CORDON_SERVER_TOKEN'

function integer(value: string): number {
  const parsed = Number(value)
  if (!Number.isSafeInteger(parsed) || parsed < 0) throw new InvalidArgumentError('expected a whole number')
  return parsed
}

interface Flags {
  host: string
  port: number
  backend: string
  maxRuns?: number
  maxTimeoutMs?: number
  maxMemoryMb?: number
  maxMessageBytes?: number
  tlsCert?: string
  tlsKey?: string
  drainTimeoutMs?: number
}

const program = new Command('cordon-server')
  .description('Runs cordon sandboxes for remote callers (@cordon/backend-remote), one WebSocket per run.')
  .option('--host <address>', 'address to listen on', '127.0.0.1')
  .option('--port <number>', 'port to listen on (0: any free port)', integer, 7311)
  .option('--backend <name>', 'auto (the strongest that works here), subprocess, ivm or quickjs', 'auto')
  .option('--max-runs <number>', 'runs and sessions at once; one more is refused BUSY (default: 4 per core)', integer)
  .option('--max-timeout-ms <number>', 'the largest timeoutMs a caller may ask for (default 300000)', integer)
  .option('--max-memory-mb <number>', 'the largest memoryMb a caller may ask for (default 512)', integer)
  .option('--max-message-bytes <number>', 'the largest message a caller may send (default 64 MiB)', integer)
  .option('--tls-cert <file>', 'serve https/wss with this certificate (PEM)')
  .option('--tls-key <file>', 'the key of --tls-cert (PEM)')
  .option('--drain-timeout-ms <number>', 'on SIGTERM, how long runs in flight may take to finish (default 30000)', integer)
  .addHelpText('after', `\nThe token callers must present comes from ${TOKEN_ENV} (at least 16 characters).`)
  .showHelpAfterError()

program.parse()
const flags = program.opts<Flags>()

async function main(): Promise<void> {
  const token = process.env[TOKEN_ENV]
  if (token === undefined || token.length < 16) {
    process.stderr.write(`cordon-server: set ${TOKEN_ENV} to a secret of at least 16 characters\n`)
    process.exit(2)
  }
  if ((flags.tlsCert === undefined) !== (flags.tlsKey === undefined)) {
    process.stderr.write('cordon-server: --tls-cert and --tls-key go together\n')
    process.exit(2)
  }
  const server = await startServer({
    token,
    host: flags.host,
    port: flags.port,
    backend: flags.backend,
    maxRuns: flags.maxRuns,
    maxLimits: { timeoutMs: flags.maxTimeoutMs, memoryMb: flags.maxMemoryMb },
    maxMessageBytes: flags.maxMessageBytes,
    drainTimeoutMs: flags.drainTimeoutMs,
    tls:
      flags.tlsCert === undefined || flags.tlsKey === undefined
        ? undefined
        : { cert: readFileSync(flags.tlsCert, 'utf8'), key: readFileSync(flags.tlsKey, 'utf8') },
  })
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    server.drain().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

main().catch((error: unknown) => {
  process.stderr.write(`cordon-server: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
