// The release plan our changesets ask for, computed independently of @changesets/cli.
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

export type Bump = 'major' | 'minor' | 'patch'
const order: Bump[] = ['patch', 'minor', 'major']

/** Per package, the largest bump any pending changeset asks for, and each changeset's first line. */
export function requestedBumps(changesetDir: string): Map<string, { bump: Bump; summaries: string[] }> {
  const requested = new Map<string, { bump: Bump; summaries: string[] }>()
  for (const file of readdirSync(changesetDir).filter((f) => f.endsWith('.md') && f !== 'README.md')) {
    const [, front = '', body = ''] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(readFileSync(join(changesetDir, file), 'utf8')) ?? []
    const summary = body.trim().split('\n')[0] ?? ''
    for (const [, name, bump] of front.matchAll(/^["']?([^"':]+)["']?:\s*(major|minor|patch)\s*$/gm)) {
      const entry = requested.get(name!) ?? { bump: 'patch', summaries: [] }
      if (order.indexOf(bump as Bump) > order.indexOf(entry.bump)) entry.bump = bump as Bump
      entry.summaries.push(summary)
      requested.set(name!, entry)
    }
  }
  return requested
}

export function bumpVersion(version: string, bump: Bump): string {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number)
  if (bump === 'major') return `${major + 1}.0.0`
  if (bump === 'minor') return `${major}.${minor + 1}.0`
  return `${major}.${minor}.${patch + 1}`
}
