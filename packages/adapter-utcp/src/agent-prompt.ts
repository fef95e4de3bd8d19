/** What an agent is told about `callToolChain` (CodeModeUtcpClient.AGENT_PROMPT_TEMPLATE). */
export const AGENT_PROMPT = `
## Tool chains: calling UTCP tools from code

Instead of calling tools one by one, write one TypeScript (or JavaScript) program that does the whole job and run it with \`callToolChain\`. It runs in a sandbox; you get back the value it returns and what it printed.

### Tools in the program
- Each tool is a function named after its manual and itself: \`manual.tool(args)\`. Characters other than letters, digits and \`_\` in either name become \`_\`.
- A tool takes one object of arguments and returns its result directly, without \`await\` (\`await manual.tool(args)\` also works).
- Before writing code that depends on a tool's arguments or result, read its declaration: \`__interfaces\` holds the TypeScript declarations of every tool, and \`__getToolInterface('manual.tool')\` returns one (or null).
- A tool that fails throws an \`Error\` with the tool's message. Catch it with try/catch where the program can go on without that result.

### The program
- End with \`return value\`: the value comes back as JSON, so return plain data and keep it small. Without a \`return\`, the value of the last expression is returned.
- Type annotations are allowed and removed before the program runs. \`async\`/\`await\` work at the top level.
- \`console.log\`, \`console.info\`, \`console.warn\` and \`console.error\` lines come back with the result; the last three are marked \`[INFO]\`, \`[WARN]\` and \`[ERROR]\`.
- The program can reach the tools and nothing else: no network, files, environment or \`require\`. Standard built-ins (\`JSON\`, \`Math\`, \`Date\`, \`Map\`, …) and timers are there.
- It has a time limit, which the tools' own time counts toward, and a memory limit. When it fails, the last log line starts with \`[ERROR] Code execution failed:\` and says why.

### How to work
1. Find the tools the task needs in \`__interfaces\` and check their inputs and outputs.
2. Write one program that calls them, passing one tool's results to the next and filtering or combining data in code rather than returning everything.
3. Return only what answers the task. If the program fails, read the error line, fix the code and run it again.
`.trim()
