// A tools module for `cordon run --tools`: the default export maps dotted names to tools.
// The guest calls them as `await github.listIssues({ repo })`; they run here, on the host.
export default {
  'github.listIssues': {
    description: 'List the open issues of a repository',
    inputSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
    execute: async ({ repo }) => [
      { id: 1, title: `${repo}: crash on start`, labels: ['bug'] },
      { id: 2, title: 'docs: typo', labels: ['docs'] },
      { id: 3, title: 'leak in pool', labels: ['bug', 'perf'] },
    ],
  },
}
