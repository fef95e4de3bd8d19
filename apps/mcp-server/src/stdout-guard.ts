import { Console } from 'node:console'

/**
 * stdout is the MCP channel: one stray line from a dependency (json-schema-to-typescript
 * prints debug output with console.info when VERBOSE is set) would corrupt the protocol.
 * Every console method writes to stderr from here on; the SDK's transport writes to
 * process.stdout directly and is unaffected.
 */
export function keepConsoleOffStdout(): void {
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr })
}
