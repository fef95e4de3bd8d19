import type { GuestNamespace, GuestTool } from './guest-catalog.js'

export interface ToolHit {
  /** `namespace.tool`, as the guest calls it. */
  label: string
  tool: GuestTool
  score: number
}

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'the',
  'to',
  'of',
  'for',
  'in',
  'on',
  'by',
  'with',
  'from',
  'or',
  'is',
  'it',
  'me',
  'my',
  'all',
  'that',
  'this',
])

/**
 * Finds tools by keywords, deterministically: the query and each tool's names, title and
 * description are split into lower-case words (`listIssues`, `list-issues` and `list_issues`
 * all give `list` + `issue`; a plural `s` is dropped). A query word found among the tool's
 * or namespace's name words scores 3 (2 when one is a prefix of the other), among its
 * title/description words 1 (2/3 for a prefix). Tools scoring above 0 come back best first,
 * ties in `namespace.tool` order, so the same query always gives the same list.
 */
export function searchTools(namespaces: readonly GuestNamespace[], query: string, limit: number): ToolHit[] {
  const terms = [...new Set(words(query).filter((word) => !STOP_WORDS.has(word)))]
  if (terms.length === 0) return []
  const hits: ToolHit[] = []
  for (const ns of namespaces) {
    for (const tool of ns.tools) {
      const names = new Set([...words(ns.name), ...words(tool.guestName), ...words(tool.upstreamName)])
      const text = new Set(words(`${tool.title ?? ''} ${tool.description ?? ''}`))
      let score = 0
      for (const term of terms) score += Math.max(3 * match(term, names), match(term, text))
      if (score > 0) hits.push({ label: `${ns.name}.${tool.guestName}`, tool, score })
    }
  }
  hits.sort((a, b) => b.score - a.score || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
  return hits.slice(0, limit)
}

/** 1 for the word itself, 2/3 when one is a prefix of the other (both at least 3 letters), else 0. */
function match(term: string, candidates: ReadonlySet<string>): number {
  if (candidates.has(term)) return 1
  if (term.length < 3) return 0
  for (const word of candidates) {
    if (word.length >= 3 && (word.startsWith(term) || term.startsWith(word))) return 2 / 3
  }
  return 0
}

export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '')
    .map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word))
}
