import { InvalidArgumentError, Option, type Command } from 'commander'
import type { Limits, RunOptions } from '@cordon/core'
import type { CreateSandboxOptions } from '@cordon/select'
import { noteLostIsolate } from './process-end.js'
import { fetchSecretFlag, type FetchFlags } from './fetch-flags.js'

/** Flags shared by `cordon run` and `cordon repl`, as commander parses them. */
export interface SandboxFlags extends FetchFlags {
  backend: string
  prefer?: string[]
  timeout?: number
  memory?: number
  maxOutput?: number
  maxToolCalls?: number
  globals?: string
  tools?: string[]
  stats?: boolean
  trace?: boolean
}

/** `cordon run`'s debugging flags: `true`, or the port or file given. */
export interface DebugFlags {
  inspect?: number | true
  inspectBrk?: number | true
  cpuProf?: true
  cpuProfName?: string
}

export const BACKEND_CHOICES = ['auto', 'subprocess', 'quickjs', 'ivm'] as const

export function addSandboxFlags(command: Command): Command {
  return command
    .addOption(
      new Option('-b, --backend <name>', 'sandbox backend; auto picks the strongest that works here (see cordon doctor)')
        .choices(BACKEND_CHOICES)
        .default('auto'),
    )
    .option('--prefer <names>', 'with auto: backends to try first, comma-separated (e.g. quickjs,subprocess)', commaList)
    .option('-t, --timeout <ms>', 'wall-clock limit of the run (timeoutMs, default 30000)', wholeNumber)
    .option('-m, --memory <mb>', 'guest memory limit (memoryMb, default 128)', wholeNumber)
    .option('--max-output <bytes>', 'size limit of the serialized value (maxOutputBytes, default 1 MiB)', wholeNumber)
    .option('--max-tool-calls <n>', 'tool calls allowed (maxToolCalls, default 100)', wholeNumber)
    .option('-g, --globals <json-file>', 'a JSON object whose keys become global variables')
    .option('--tools <module>', 'an ES module whose default export (or `tools`) is a ToolSet; repeatable', collect)
    .option('--stats', 'print the run stats (backend, time, memory, tool calls) on stderr')
    .option('--trace', 'print each tool call on stderr as it starts and ends: name, sizes, duration, error')
    .option(
      '--fetch-allow <origin>',
      'give the guest a host-performed fetch limited to this origin (https://api.example.com); repeatable',
      collect,
    )
    .option(
      '--fetch-secret <NAME=ENV_VAR@host>',
      'the guest writes NAME (e.g. "Bearer NAME"); the host sends the value of ENV_VAR instead, only to these hosts (comma-separated); repeatable',
      fetchSecretFlag,
    )
    .option(
      '--fetch-allow-private',
      'let --fetch-allow origins that name a loopback or private address literally be reached (local services)',
    )
}

/** The flags as @cordon/select options: `--backend` forces, `--prefer` orders. */
export function selectOptionsFrom(flags: SandboxFlags & DebugFlags): CreateSandboxOptions {
  // Told, the CLI can still end its process after isolated-vm loses an isolate (process-end.ts).
  // Debugging your own program: the CLI turns on ivm's in-process inspector (off by default there).
  const backendOptions = { ivm: { onCatastrophicError: noteLostIsolate, ...(debugging(flags) ? { inspector: true } : {}) } }
  if (flags.backend !== 'auto') return { backend: flags.backend, backendOptions }
  // Debugging and profiling need a backend with V8's inspector.
  const require = debugging(flags) ? { require: { inspector: true } } : {}
  return flags.prefer ? { prefer: flags.prefer, backendOptions, ...require } : { backendOptions, ...require }
}

export function debugging(flags: DebugFlags): boolean {
  return flags.inspect !== undefined || flags.inspectBrk !== undefined || profiling(flags)
}

/** The debugging flags as run options. A debugger suspends the deadline unless --timeout was given. */
export function debugOptionsFrom(flags: SandboxFlags & DebugFlags): Pick<RunOptions, 'inspector' | 'cpuProfile'> {
  const options: Pick<RunOptions, 'inspector' | 'cpuProfile'> = {}
  const inspect = flags.inspectBrk ?? flags.inspect
  if (inspect !== undefined) {
    options.inspector = {
      ...(inspect === true ? {} : { port: inspect }),
      waitForDebugger: flags.inspectBrk !== undefined,
      suspendDeadline: flags.timeout === undefined,
    }
  }
  if (profiling(flags)) options.cpuProfile = true
  return options
}

/** `--cpu-prof`, or `--cpu-prof-name`, which implies it (a flag with an optional value would take a program file for its name). */
export function profiling(flags: DebugFlags): boolean {
  return flags.cpuProf === true || flags.cpuProfName !== undefined
}

/** The port of `--inspect [port]`, checked as commander parses it (a usage error otherwise). */
export function portNumber(value: string): number {
  const port = wholeNumber(value)
  if (port > 65535) throw new InvalidArgumentError('expected a port number (0 to 65535).')
  return port
}

/** The limit flags as run options; unset ones fall back to CORDON_* variables, then core's defaults. */
export function limitsFrom(flags: SandboxFlags): Partial<Limits> {
  const limits: Partial<Limits> = {}
  if (flags.timeout !== undefined) limits.timeoutMs = flags.timeout
  if (flags.memory !== undefined) limits.memoryMb = flags.memory
  if (flags.maxOutput !== undefined) limits.maxOutputBytes = flags.maxOutput
  if (flags.maxToolCalls !== undefined) limits.maxToolCalls = flags.maxToolCalls
  return limits
}

/** Could this command end up on ivm? Then Node needs --no-node-snapshot. */
export function mayUseIvm(flags: SandboxFlags & DebugFlags, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flags.backend !== 'auto') return flags.backend === 'ivm'
  if (debugging(flags)) return true
  return env.CORDON_BACKEND?.trim().toLowerCase() === 'ivm' || (flags.prefer ?? []).includes('ivm')
}

/** A whole number of at least 1 (e.g. `cordon daemon start --idle`). */
export function positiveNumber(value: string): number {
  const number = wholeNumber(value)
  if (number < 1) throw new InvalidArgumentError('expected a whole number of at least 1.')
  return number
}

function wholeNumber(value: string): number {
  if (!/^\d[\d_]*$/.test(value)) throw new InvalidArgumentError('expected a whole number.')
  return Number(value.replace(/_/g, ''))
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '')
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value]
}
