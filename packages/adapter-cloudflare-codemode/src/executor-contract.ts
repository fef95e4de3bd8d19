/**
 * The shapes of @cloudflare/codemode's executor contract, written out structurally so that this
 * package's types do not pull in Cloudflare's declarations (they import `cloudflare:workers`, the
 * AI SDK and zod). A `CordonExecutor` is assignable to Cloudflare's `Executor`; the tests check it.
 */

/** A host function the guest calls as `namespace.name(...args)`: every argument, in order. */
export type ProviderFunction = (...args: unknown[]) => Promise<unknown>

/** One namespace of host functions, as `createCodeTool`, `codeMcpServer` and `openApiMcpServer` resolve them. */
export interface ResolvedProvider {
  /** The global the guest calls them through (`codemode`, `github`): a plain identifier. */
  name: string
  /** By tool name; names that are not identifiers are reached by their sanitized form (`list-issues` → `list_issues`). */
  fns: Record<string, ProviderFunction>
  /**
   * Guest JavaScript run after every namespace exists and before the code, in the same realm: it may
   * define functions on the namespace (`codemode.step = async (…) => …`), which then take precedence
   * over host functions of the same name.
   */
  prelude?: string
}

/** A connector: every `name.method(args)` of the guest becomes `binding.callTool(method, args)` on the host. */
export interface ConnectorBinding {
  name: string
  binding: { callTool(method: string, args: unknown): Promise<unknown> }
}

export interface ExecuteOptions {
  connectors?: ConnectorBinding[]
}

/** What an execution ends with: the value, or an error text for the model; the console lines either way. */
export interface ExecuteResult {
  result: unknown
  error?: string
  logs?: string[]
}
