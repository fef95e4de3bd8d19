import { SandboxError, type DurableOptions } from '@cordon/core'
import { lazySandbox, type LazySandbox, type SandboxSource } from '@cordon/select'
import { UtcpClient, type Tool, type UtcpClientConfig } from '@utcp/sdk'
import { AGENT_PROMPT } from './agent-prompt.js'
import { guestTools } from './guest-tools.js'
import { describeThrown, failedChain, toolChainResult, type ToolChainResult } from './result-mapping.js'
import { runToolChain, type CallAnswer } from './tool-chain.js'
import { allDeclarations, toolDeclaration } from './typescript-declarations.js'

/** Where `callToolChain` runs: `{ sandbox }`, `{ backend }`, or neither for @cordon/select's choice. */
export type CodeModeUtcpClientOptions = SandboxSource

/** Each client's sandbox. A WeakMap, since clients are UtcpClients given this prototype: no constructor of ours runs. */
const sandboxes = new WeakMap<object, LazySandbox>()

/**
 * UTCP's `CodeModeUtcpClient` on cordon: a `UtcpClient` whose `callToolChain` runs the program in
 * a cordon sandbox (isolated-vm, QuickJS or a locked-down child process) instead of an isolate of
 * its own, with the same tools, names, console lines and result. Nothing here needs isolated-vm,
 * so it runs on Node, Bun and Deno.
 */
export class CodeModeUtcpClient extends UtcpClient {
  /** What to tell an agent about tool chains: put it in the system prompt, with `__interfaces` or `getAllToolsTypeScriptInterfaces()`. */
  static readonly AGENT_PROMPT_TEMPLATE: string = AGENT_PROMPT

  /**
   * A client as `UtcpClient.create(root_dir, config)` makes it (the config's manuals registered),
   * whose tool chains run where `options` say: a cordon `sandbox` you made (with `durable` keys;
   * you dispose it), a `backend` for a sandbox of the client's own, or by default the strongest
   * backend `@cordon/select` finds here. The client's own sandbox is made on the first chain and
   * ended by `close()`.
   */
  static override async create(
    root_dir?: string,
    config: UtcpClientConfig | null = null,
    options: CodeModeUtcpClientOptions = {},
  ): Promise<CodeModeUtcpClient> {
    // Tool calls pause and replay the program: the client's own sandbox needs durable keys and
    // a backend with synchronous host calls.
    const sandbox = lazySandbox(options, 'CodeModeUtcpClient', { defaults: { durable: ownDurable() }, require: ['syncHostCalls'] })
    const client = await UtcpClient.create(root_dir, config)
    // UtcpClient's constructor is protected and create() builds a UtcpClient: lend it our methods.
    Object.setPrototypeOf(client, CodeModeUtcpClient.prototype)
    sandboxes.set(client, sandbox)
    return client as CodeModeUtcpClient
  }

  /** One tool as TypeScript: its input and output types and the function guest code calls, in its manual's namespace. */
  toolToTypeScriptInterface(tool: Tool): string {
    return toolDeclaration(tool)
  }

  /** Every registered tool as TypeScript, under one header line: what the guest reads as `__interfaces`. */
  async getAllToolsTypeScriptInterfaces(): Promise<string> {
    return allDeclarations(await this.getTools())
  }

  /**
   * Runs `code` (TypeScript or JavaScript) with every registered tool as a synchronous function
   * (`manual.tool(args)`), `__interfaces` and `__getToolInterface(name)`. Resolves the returned
   * value as JSON and the console lines; never rejects: a failure resolves `result: null` with a
   * last line `[ERROR] Code execution failed: …`. `timeout` (ms, default 30,000) covers the whole
   * chain, time in tools included; `memoryLimit` (MB) caps the guest's heap (default: the
   * sandbox's, 128 unless you made it otherwise).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as UTCP's client types `result`
  async callToolChain<T = any>(code: string, timeout = 30_000, memoryLimit?: number): Promise<ToolChainResult<T>> {
    try {
      const source = sandboxes.get(this)
      if (source === undefined) throw new SandboxError('INVALID_OPTIONS', 'make clients with CodeModeUtcpClient.create()')
      const guest = guestTools(await this.getTools())
      const result = await runToolChain({
        sandbox: await source.get(),
        code,
        tools: guest.tools,
        globals: guest.globals,
        timeoutMs: timeout,
        ...(memoryLimit === undefined ? {} : { memoryMb: memoryLimit }),
        call: (tool, args) => callUtcpTool(this, guest.utcpNames.get(tool) ?? tool, args),
      })
      return toolChainResult<T>(result)
    } catch (error) {
      return failedChain<T>([], describeThrown(error))
    }
  }

  /** Closes the UTCP client (its communication protocols), then the sandbox the client made, if it made one. */
  override async close(): Promise<void> {
    try {
      await super.close()
    } finally {
      await sandboxes.get(this)?.dispose()
    }
  }
}

/**
 * A guest's call, made as UTCP's code-mode client makes it: the arguments as JSON (`{}` for none),
 * the result as JSON, and a failure as the message of the Error the guest's call throws, with an
 * HTTP error's response body after it.
 */
async function callUtcpTool(client: UtcpClient, toolName: string, args: unknown): Promise<CallAnswer> {
  try {
    const toolArgs = jsonCopy(args || {}) as Record<string, unknown>
    return { answer: jsonCopy(await client.callTool(toolName, toolArgs)) }
  } catch (error) {
    return { reject: toolErrorMessage(error) }
  }
}

function jsonCopy(value: unknown): unknown {
  const text = JSON.stringify(value)
  return text === undefined ? undefined : JSON.parse(text)
}

function toolErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const data = (error as { response?: { data?: unknown } } | null | undefined)?.response?.data
  if (!data) return message
  try {
    return `${message} Error data: ${JSON.stringify(data)}`
  } catch {
    return message
  }
}

/**
 * Keys for a sandbox only this process uses: its continuations never leave it, so a random key
 * made here, never stored, is all the signing they need.
 */
function ownDurable(): DurableOptions {
  return { keys: [crypto.getRandomValues(new Uint8Array(32))] }
}
