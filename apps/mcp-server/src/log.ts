/**
 * stdout carries the MCP protocol, so everything meant for people goes to stderr
 * (MCP clients such as Claude Desktop keep it in their server log).
 */
export function log(message: string): void {
  process.stderr.write(`cordon-mcp: ${message}\n`)
}
