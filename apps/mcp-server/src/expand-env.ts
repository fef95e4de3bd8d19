/**
 * `${NAME}` in an upstream's command, args, env values or cwd is replaced by cordon-mcp's own
 * environment variable, so secrets can stay in the MCP client's settings instead of the
 * config file. `$${` writes a literal `${`. A variable that is not set is an error: an
 * upstream started with an empty token fails later in ways that are harder to read.
 */
export function expandEnv(text: string, env: NodeJS.ProcessEnv, where: string): string {
  return text.replace(/\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (match, name: string) => {
    if (match.startsWith('$$')) return match.slice(1)
    const value = env[name]
    if (value === undefined) throw new Error(`${where} uses \${${name}}, which is not set in cordon-mcp's environment`)
    return value
  })
}
