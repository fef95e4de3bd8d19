import type { AsyncCompleter, CompleterResult } from 'node:readline'
import type { ReplRunner } from './repl-runner.js'

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
/** The dotted name being typed at the end of the line: `Math.ma`, `github.`, `xs`. */
const TRAILING_NAME = /[\w$.]*$/

/**
 * Tab: the guest's globals, then the members of a global (`Math.`, `xs.`), asked of the guest
 * with a run (of the session, so what earlier entries defined is offered); tool namespaces
 * and tool names come from the host's tool set, without a run. While an entry runs, only
 * names already known are offered (a run would wait for the entry).
 */
export function replCompleter(runner: ReplRunner, toolNames: readonly string[]): AsyncCompleter {
  const complete = async (line: string): Promise<CompleterResult> => {
    const typed = TRAILING_NAME.exec(line)![0]
    const parts = typed.split('.')
    const prefix = parts.pop()!
    if (typed === '' || !parts.every((part) => IDENTIFIER.test(part)) || (prefix !== '' && !IDENTIFIER.test(prefix))) return [[], typed]
    const names = new Set(toolMembers(toolNames, parts))
    // A tool namespace holds its tools and nothing else worth offering.
    if (names.size === 0 || parts.length === 0) for (const name of await runner.propertyNames(parts)) names.add(name)
    const hits = [...names]
      .filter((name) => name.startsWith(prefix) && IDENTIFIER.test(name))
      .sort()
      .map((name) => [...parts, name].join('.'))
    return [hits, typed]
  }
  return (line, callback) => {
    complete(line).then(
      (result) => callback(null, result),
      () => callback(null, [[], line]),
    )
  }
}

/** The next name after `path` among the dotted tool names (`[]` → the namespaces). */
function toolMembers(toolNames: readonly string[], path: readonly string[]): string[] {
  const members: string[] = []
  for (const name of toolNames) {
    const segments = name.split('.')
    if (segments.length > path.length && path.every((part, i) => segments[i] === part)) members.push(segments[path.length]!)
  }
  return members
}
