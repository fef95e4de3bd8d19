// cordon-mcp: an MCP server (stdio, or Streamable HTTP with --http) whose run_javascript tool runs a model's program in a
// cordon sandbox, with the tools of upstream MCP servers as namespaces inside it. This file
// wires the steps together; each step lives in its own file.
import { createRequire } from 'node:module'
import { createSandbox, isSandboxError, type DurableOptions, type Sandbox } from '@cordon/core'
import { selectBackend } from '@cordon/select'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { approvalRule, durableOptions } from './approval.js'
import { ceilingsFrom, PER_CALL_LIMITS } from './call-limits.js'
import { createCatalog } from './catalog.js'
import { parseInvocation, UnsafeInvocationError, USAGE, UsageError, type Invocation } from './cli-args.js'
import { createCodeModeServer, type CodeModeServerOptions } from './code-mode-server.js'
import { serveHttp } from './http-server.js'
import { retryLateUpstream } from './late-upstreams.js'
import type { Config } from './config-schema.js'
import { fetchOptionFrom } from './fetch-option.js'
import { ConfigError, emptyConfig, loadConfig, type LoadedConfig } from './load-config.js'
import { log } from './log.js'
import { onShutdown } from './shutdown.js'
import { keepConsoleOffStdout } from './stdout-guard.js'
import { closeUpstreams, startUpstreams } from './start-upstreams.js'
import { runToolDescription, usesDiscovery } from './tool-description.js'

const { version } = createRequire(import.meta.url)('../package.json') as { version: string }

const EXIT = { startupFailed: 1, usage: 2 } as const

async function main(): Promise<void> {
  let invocation
  try {
    invocation = parseInvocation(process.argv.slice(2), process.env)
  } catch (error) {
    if (error instanceof UnsafeInvocationError) {
      log(`cannot start: ${error.message}`)
      process.exit(EXIT.startupFailed)
    }
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`cordon-mcp: ${error.message}\n\n${USAGE}\n`)
    process.exit(EXIT.usage)
  }
  if (invocation.kind === 'help') return void process.stdout.write(`${USAGE}\n`)
  if (invocation.kind === 'version') return void process.stdout.write(`${version}\n`)

  keepConsoleOffStdout()
  const shutdown = onShutdown({ stdin: invocation.http === undefined })
  try {
    await serve(invocation, shutdown)
  } catch (error) {
    // A bug, or a failure nothing above explains: still stop every process started so far.
    log(`cannot start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    await shutdown.stop(EXIT.startupFailed)
  }
}

type Shutdown = ReturnType<typeof onShutdown>
type ServeInvocation = Extract<Invocation, { kind: 'serve' }>

async function serve({ configFile, http, discoveryThreshold }: ServeInvocation, shutdown: Shutdown): Promise<void> {
  const loaded = await readConfig(configFile)
  const { config } = loaded
  const ceilings = ceilingsFrom(config.limits)

  // Tools a person must approve pause run_javascript; resume_javascript continues from a signed continuation.
  const approval = approvalRule(config)
  let durable: ReturnType<typeof durableOptions> | undefined
  try {
    durable = approval && durableOptions()
  } catch (error) {
    return startupFailed(shutdown, 'bad config', error)
  }
  if (durable !== undefined && !durable.fromEnvironment) {
    log('approvals: continuations are signed with a key of this process; set CORDON_MCP_DURABLE_KEY to resume after a restart')
  }
  // The sandbox and the upstreams start at the same time: both take a while.
  const [sandboxOutcome, upstreamsOutcome] = await Promise.allSettled([
    openSandbox(config.backend, ceilings, durable?.options, config.fetch),
    startUpstreams(config, { configDirectory: loaded.directory, version }),
  ])
  if (sandboxOutcome.status === 'fulfilled') shutdown.add(() => sandboxOutcome.value.dispose())
  if (upstreamsOutcome.status === 'fulfilled') shutdown.add(() => closeUpstreams(upstreamsOutcome.value.upstreams))
  if (sandboxOutcome.status === 'rejected') {
    const what = sandboxOutcome.reason instanceof ConfigError ? 'bad config' : 'no sandbox backend can be used'
    return startupFailed(shutdown, what, sandboxOutcome.reason)
  }
  if (upstreamsOutcome.status === 'rejected')
    return startupFailed(shutdown, 'a required upstream server did not start', upstreamsOutcome.reason)
  const sandbox = sandboxOutcome.value
  const { upstreams, unavailable, retryable } = upstreamsOutcome.value

  const catalog = await createCatalog(sandbox, upstreams, unavailable, ceilings.timeoutMs, approval)
  const upstreamOptions = { configDirectory: loaded.directory, version }
  for (const { name, entry } of retryable) {
    // One that connects joins `upstreams` through the catalog, and is closed at shutdown with the others.
    const stop = retryLateUpstream(name, entry, upstreamOptions, catalog)
    shutdown.add(() => Promise.resolve(stop()))
  }
  const serverOptions: CodeModeServerOptions = {
    version,
    sandbox,
    catalog: () => catalog.view(),
    discovery: usesDiscovery({ namespaces: catalog.view().namespaces, discoveryThreshold }),
    description: () => {
      const { namespaces, declarations, refused, unavailable, down } = catalog.view()
      return runToolDescription({
        namespaces,
        declarations: declarations.all,
        ceilings,
        unavailable,
        refused,
        down,
        discoveryThreshold,
        fetchOrigins: config.fetch?.allow,
      })
    },
    watchDescription: (listener) => catalog.onChange(listener),
    ceilings,
    approvals: approval !== undefined,
    perCallLimits: sandbox.backend.capabilities.memoryLimit ? PER_CALL_LIMITS : PER_CALL_LIMITS.filter((name) => name !== 'memoryMb'),
  }
  let listening = 'over stdio'
  if (http === undefined) {
    const server = createCodeModeServer(serverOptions)
    shutdown.add(() => server.close())
    server.server.onerror = (error) => log(`MCP connection error: ${error.message}`)
    await server.connect(new StdioServerTransport())
  } else {
    let running
    try {
      running = await serveHttp({
        ...http,
        newServer: (runGate) => {
          const server = createCodeModeServer({ ...serverOptions, runGate })
          server.server.onerror = (error) => log(`MCP connection error: ${error.message}`)
          return server
        },
      })
    } catch (error) {
      return startupFailed(shutdown, `cannot listen on ${http.host}:${http.port}`, error)
    }
    shutdown.add(() => running.close())
    listening = `${http.stateless ? 'stateless ' : ''}Streamable HTTP at ${running.url}${http.token === undefined ? ', no token (loopback only)' : ', bearer token required'}`
  }

  const { namespaces } = catalog.view()
  const toolCount = namespaces.reduce((sum, ns) => sum + ns.tools.length, 0)
  log(
    `ready (version ${version}, backend ${sandbox.backend.name}, ${toolCount} tools from ${namespaces.length} upstream servers` +
      `${unavailable.length > 0 ? `, ${unavailable.length} unavailable` : ''}${loaded.file ? `, config ${loaded.file}` : ', no config file'}); serving ${listening}`,
  )
}

async function readConfig(file: string | undefined): Promise<LoadedConfig> {
  if (file === undefined) return emptyConfig()
  try {
    return await loadConfig(file)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    log(error.message)
    process.exit(EXIT.startupFailed)
  }
}

/** The sandbox every run uses: the configured backend (or the strongest that works), the config's limits as defaults. */
async function openSandbox(
  backendChoice: string,
  ceilings: ReturnType<typeof ceilingsFrom>,
  durable: DurableOptions | undefined,
  fetchConfig: Config['fetch'],
): Promise<Sandbox> {
  const fetch = fetchOptionFrom(fetchConfig)
  const { backend } = await selectBackend(backendChoice === 'auto' ? {} : { backend: backendChoice })
  const { memoryMb: _memoryMb, ...others } = ceilings
  try {
    return createSandbox(backend, {
      ...(backend.capabilities.memoryLimit ? ceilings : others),
      ...(durable && { durable }),
      ...(fetch && { fetch }),
    })
  } catch (error) {
    await backend.dispose()
    // Core checks each limit's range and the fetch option; its message names what is wrong.
    if (isSandboxError(error, 'INVALID_OPTIONS')) {
      const part = error.message.startsWith('createSandbox defaults: fetch') ? 'fetch' : 'limits'
      throw new ConfigError(`the config's "${part}" are not valid: ${error.message}`)
    }
    throw error
  }
}

function startupFailed(shutdown: Shutdown, what: string, error: unknown): Promise<never> {
  const message = error instanceof Error ? error.message : String(error)
  const fix = isSandboxError(error) && 'fix' in error && typeof error.fix === 'string' ? `\nfix: ${error.fix}` : ''
  log(`cannot start: ${what}:\n${message}${fix}`)
  return shutdown.stop(EXIT.startupFailed)
}

await main()
