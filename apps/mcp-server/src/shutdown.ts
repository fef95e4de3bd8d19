import { log } from './log.js'

type Cleanup = () => Promise<void>

/**
 * One orderly exit for every way the server can be told to stop: the client closing our stdin
 * (how MCP clients end a stdio server; stdio mode only), SIGTERM, SIGINT or SIGHUP. Cleanups registered so far
 * run once, in reverse order, each on its own (one failing does not skip the rest); then the
 * process exits. A second signal exits at once.
 */
export function onShutdown(options: { stdin: boolean }): { add(cleanup: Cleanup): void; stop(exitCode: number): Promise<never> } {
  const cleanups: Cleanup[] = []
  let stopping: Promise<never> | undefined

  const stop = (exitCode: number): Promise<never> => {
    stopping ??= (async () => {
      for (const cleanup of cleanups.reverse()) {
        await cleanup().catch((error: unknown) => log(`while shutting down: ${(error as Error).message}`))
      }
      process.exit(exitCode)
    })()
    return stopping
  }

  // Over HTTP stdin means nothing (a service manager may give /dev/null); signals stop it.
  if (options.stdin) {
    process.stdin.on('end', () => void stop(0))
    process.stdin.on('close', () => void stop(0))
  }
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (stopping !== undefined) process.exit(1)
      void stop(0)
    })
  }
  return { add: (cleanup) => void cleanups.push(cleanup), stop }
}
