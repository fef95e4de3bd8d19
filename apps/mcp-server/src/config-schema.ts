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

/** One upstream MCP server started over stdio; the shape of a Claude Desktop `mcpServers` entry, plus a few keys. */
const upstreamSchema = z.strictObject({
  type: z.literal('stdio', { error: 'only "stdio" upstream servers (command + args) are supported' }).optional(),
  command: z.string().min(1, 'command must not be empty'),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  /** When true, cordon-mcp refuses to start without this upstream. */
  required: z.boolean().default(false),
  /** When true, the entry is skipped (so it can stay in the file). */
  disabled: z.boolean().default(false),
  /** Deadline for starting the process, the MCP handshake and listing its tools. */
  startupTimeoutMs: z.int().positive().default(30_000),
})

const upstreamName = z
  .string()
  .regex(IDENTIFIER, 'a server name becomes a namespace in the sandbox: use letters, digits, _ or $, not starting with a digit')

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  mcpServers: z.record(upstreamName, upstreamSchema).default({}),
  backend: z.enum(BACKEND_CHOICES).default('auto'),
  limits: limitsSchema.default({}),
})

export type Config = z.output<typeof configSchema>
export type UpstreamConfig = z.output<typeof upstreamSchema>
export type ConfigLimits = z.output<typeof limitsSchema>
