import { z } from 'zod'

/** Backends @cordon/select knows; `auto` lets it pick the strongest that works here. */
export const BACKEND_CHOICES = ['auto', 'subprocess', 'quickjs', 'ivm'] as const

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

const wholeNumber = z.int().nonnegative()

/** Each limit is both the default of a call and the most a call may ask for. */
const limitsSchema = z.strictObject({
  timeoutMs: wholeNumber.optional(),
  memoryMb: wholeNumber.optional(),
  maxToolCalls: wholeNumber.optional(),
  maxOutputBytes: wholeNumber.optional(),
  maxConcurrentToolCalls: wholeNumber.optional(),
  maxLogEntries: wholeNumber.optional(),
  maxLogBytes: wholeNumber.optional(),
  maxCodeBytes: wholeNumber.optional(),
})

/**
 * One upstream MCP server: started over stdio (`command`, the shape of a Claude Desktop
 * `mcpServers` entry) or reached over HTTP (`url`, the shape of a Claude Code `"type": "http"`
 * entry), plus a few keys. One flat object so each problem keeps its own path in messages.
 */
const upstreamSchema = z
  .strictObject({
    /** `stdio` (with command) or `http` / `streamable-http` / `sse` (with url); inferred when left out. */
    type: z.enum(['stdio', 'http', 'streamable-http', 'sse']).optional(),
    command: z.string().min(1, 'command must not be empty').optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    /** A remote server's MCP endpoint (Streamable HTTP, or SSE for older servers). */
    url: z.string().min(1, 'url must not be empty').optional(),
    /** HTTP headers sent to a remote server, e.g. `"Authorization": "Bearer ${GITHUB_TOKEN}"`. */
    headers: z.record(z.string(), z.string()).optional(),
    /** When true, cordon-mcp refuses to start without this upstream. */
    required: z.boolean().default(false),
    /** When true, the entry is skipped (so it can stay in the file). */
    disabled: z.boolean().default(false),
    /** Deadline for starting or connecting, the MCP handshake and listing its tools (also for each reconnect). */
    startupTimeoutMs: z.int().positive().default(30_000),
    /** Deadline of one tool call (the run's own deadline applies too). */
    callTimeoutMs: z.int().positive().optional(),
    /**
     * Tools (as the upstream names them) that a person must approve: a program calling one pauses
     * and `resume_javascript` continues it. `true`: every tool of this upstream.
     */
    needsApproval: z.union([z.boolean(), z.array(z.string().min(1))]).default(false),
  })
  .superRefine((entry, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message })
    if (entry.url === undefined) {
      if (entry.command === undefined)
        problem(
          'command',
          'Invalid input: expected string, received undefined (an upstream needs "command" to start it over stdio, or "url" to reach it over HTTP)',
        )
      if (entry.headers !== undefined) problem('headers', '"headers" are for an upstream reached over HTTP ("url")')
      if (entry.type !== undefined && entry.type !== 'stdio') problem('type', `"type": "${entry.type}" needs "url"`)
      return
    }
    if (entry.command !== undefined) problem('url', 'give either "command" (stdio) or "url" (HTTP), not both')
    for (const key of ['args', 'env', 'cwd'] as const)
      if (entry[key] !== undefined) problem(key, `"${key}" is for an upstream started with "command"; this one has "url"`)
    if (entry.type === 'stdio') problem('type', '"type": "stdio" needs "command", not "url"')
  })

const upstreamName = z
  .string()
  .regex(IDENTIFIER, 'a server name becomes a namespace in the sandbox: use letters, digits, _ or $, not starting with a digit')

/**
 * The guarded fetch every run gets (core's `fetch` option): origins the program may reach, and
 * secrets it names but never sees. A secret's `value` may be `${ENV_VAR}`, read at startup.
 */
const fetchSchema = z.strictObject({
  allow: z.array(z.string().min(1)).min(1, 'list at least one origin, e.g. "https://api.example.com"'),
  secrets: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{2,}$/, 'a secret name is what the program writes: letters, digits and _, 3 or more'),
      z.strictObject({ value: z.string().min(1), hosts: z.array(z.string().min(1)).min(1) }),
    )
    .optional(),
  allowPrivateAddresses: z.boolean().optional(),
  maxRequests: wholeNumber.optional(),
  maxRequestBytes: wholeNumber.optional(),
  maxResponseBytes: wholeNumber.optional(),
  requestTimeoutMs: wholeNumber.optional(),
  maxRedirects: wholeNumber.optional(),
})

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  mcpServers: z.record(upstreamName, upstreamSchema).default({}),
  backend: z.enum(BACKEND_CHOICES).default('auto'),
  limits: limitsSchema.default({}),
  fetch: fetchSchema.optional(),
})

export type Config = z.output<typeof configSchema>
export type UpstreamConfig = z.output<typeof upstreamSchema>
export type ConfigLimits = z.output<typeof limitsSchema>
export type ConfigFetch = z.output<typeof fetchSchema>
