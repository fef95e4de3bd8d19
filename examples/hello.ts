// An agent-style program: TypeScript, a tool call, logs, and a value at the end.
interface Issue {
  id: number
  title: string
  labels: string[]
}

const issues: Issue[] = await github.listIssues({ repo })
console.log(`fetched ${issues.length} issues from ${repo}`)

const bugs = issues.filter((issue) => issue.labels.includes('bug'))
console.info(
  'bugs:',
  bugs.map((b) => b.id),
)

;({ total: issues.length, bugs: bugs.length, firstBug: bugs[0]?.title })
