/** A mistake on the command line (a flag, a file, a module): exit code 2, no stack printed. */
export class UsageError extends Error {
  readonly fix: string | undefined

  constructor(message: string, options: { cause?: unknown; fix?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'UsageError'
    this.fix = options.fix
  }
}

/** The message of anything thrown, on one line, for "could not load …: <reason>". */
export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const name = error.name && error.name !== 'Error' ? `${error.name}: ` : ''
    return `${name}${error.message}`.split('\n')[0]!
  }
  return String(error)
}
