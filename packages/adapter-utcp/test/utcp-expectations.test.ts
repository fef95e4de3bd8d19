/**
 * The expectations of UTCP's own tests for its CodeModeUtcpClient, run against this one on every
 * backend: universal-tool-calling-protocol/code-mode, typescript-library/tests/code_mode_utcp_client.test.ts
 * (commit 6ce36e4, synchronous tool calls) and typescript-utcp's packages/code-mode tests (the same
 * with `await`). The same manual, tools and programs, restated here; only the client's import and
 * `create` call differ. Where this client differs on purpose, the test says what UTCP expects and
 * checks what this client does instead (the README's table lists why).
 */
import { createIvmBackend } from '@cordon/backend-ivm'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createSubprocessBackend } from '@cordon/backend-subprocess'
import type { SandboxBackend } from '@cordon/core/backend'
import type { Tool } from '@utcp/sdk'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { CodeModeUtcpClient } from '../src/index.js'
import { addFunctionToUtcpDirectCall } from './direct-call.js'

const BACKENDS: [string, () => SandboxBackend][] = [
  ['ivm', () => createIvmBackend()],
  ['quickjs', () => createQuickJSBackend()],
  ['subprocess', () => createSubprocessBackend()],
]

/** What each tool was last called with, as UTCP's tests record it (and read it: loosely). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const called: Record<string, any> = {}

const num = (description: string) => ({ type: 'number', description })
const str = (description: string) => ({ type: 'string', description })
function tool(name: string, description: string, inputs: object, outputs: object, tags: string[]) {
  return { name, description, inputs, outputs, tags, tool_call_template: { call_template_type: 'direct-call', callable_name: name } }
}
const obj = (properties: object, required: string[] = []) => ({ type: 'object', properties, required })

beforeAll(() => {
  vi.spyOn(console, 'log').mockImplementation(() => {})
  addFunctionToUtcpDirectCall('add', async (a: number, b: number) => {
    called.add = { a, b }
    return { result: a + b, operation: 'addition' }
  })
  addFunctionToUtcpDirectCall('greet', async (name: string, formal = false) => {
    called.greet = { name, formal }
    return { greeting: formal ? `Good day, ${name}` : `Hey ${name}!`, isFormal: formal }
  })
  addFunctionToUtcpDirectCall('processData', async (data: Record<string, unknown>, options: Record<string, unknown> = {}) => {
    called.processData = { data, options }
    return {
      processedData: { ...data, processed: true, processedAt: new Date().toISOString(), options },
      metadata: { itemCount: Array.isArray(data) ? data.length : 1, hasOptions: Object.keys(options).length > 0 },
    }
  })
  addFunctionToUtcpDirectCall('throwError', async (message: string) => {
    called.throwError = { message }
    throw new Error(message)
  })
  addFunctionToUtcpDirectCall('getCurrentTime', async () => {
    called.getCurrentTime = {}
    return { timestamp: Date.now(), iso: new Date().toISOString() }
  })
  addFunctionToUtcpDirectCall('sumArray', async (numbers: number[]) => {
    called.sumArray = { numbers }
    const sum = numbers.reduce((a, b) => a + b, 0)
    return { sum, count: numbers.length, average: numbers.length > 0 ? sum / numbers.length : 0 }
  })
  addFunctionToUtcpDirectCall('getTestManual', async () => ({
    utcp_version: '1.0.0',
    manual_version: '1.0.0',
    tools: [
      tool(
        'add',
        'Adds two numbers together',
        obj({ a: num('First number'), b: num('Second number') }, ['a', 'b']),
        obj({ result: num('Sum of the numbers'), operation: str('Type of operation') }, ['result', 'operation']),
        ['math', 'arithmetic'],
      ),
      tool(
        'greet',
        'Generates a greeting message',
        obj({ name: str('Name to greet'), formal: { type: 'boolean', description: 'Whether to use formal greeting', default: false } }, [
          'name',
        ]),
        obj({ greeting: str('The greeting message'), isFormal: { type: 'boolean', description: 'Whether the greeting was formal' } }, [
          'greeting',
          'isFormal',
        ]),
        ['text', 'greeting'],
      ),
      tool(
        'processData',
        'Processes data with optional configuration',
        obj({ data: { description: 'Data to process' }, options: { type: 'object', description: 'Processing options', default: {} } }, [
          'data',
        ]),
        obj({ processedData: { description: 'The processed data' }, metadata: { type: 'object', description: 'Processing metadata' } }, [
          'processedData',
          'metadata',
        ]),
        ['processing', 'data'],
      ),
      tool('throwError', 'Throws an error for testing error handling', obj({ message: str('Error message') }, ['message']), obj({}), [
        'testing',
        'error',
      ]),
      tool(
        'getCurrentTime',
        'Gets the current timestamp',
        obj({}),
        obj({ timestamp: num('Unix timestamp'), iso: str('ISO date string') }, ['timestamp', 'iso']),
        ['time', 'utility'],
      ),
      tool(
        'sumArray',
        'Calculates sum and statistics of a number array',
        obj({ numbers: { type: 'array', items: { type: 'number' }, description: 'Array of numbers to sum' } }, ['numbers']),
        obj({ sum: num('Sum of all numbers'), count: num('Count of numbers'), average: num('Average of numbers') }, [
          'sum',
          'count',
          'average',
        ]),
        ['math', 'array', 'statistics'],
      ),
    ],
  }))
})

describe.each(BACKENDS)("UTCP's CodeModeUtcpClient tests on %s", (_, backend) => {
  let client: CodeModeUtcpClient

  beforeAll(async () => {
    client = await CodeModeUtcpClient.create(undefined, null, { backend: backend() })
    const registered = await client.registerManual({
      name: 'test_tools',
      call_template_type: 'direct-call',
      callable_name: 'getTestManual',
    })
    expect(registered.success).toBe(true)
  })
  afterAll(async () => {
    await client.close()
  })
  beforeEach(() => {
    for (const key of Object.keys(called)) delete called[key]
  })

  it('is a CodeModeUtcpClient with the registered tools', async () => {
    expect(client).toBeInstanceOf(CodeModeUtcpClient)
    const names = (await client.getTools()).map((t) => t.name.split('.').pop())
    expect(names).toEqual(expect.arrayContaining(['add', 'greet', 'processData']))
  })

  it('converts a tool to a TypeScript interface', async () => {
    const addTool = (await client.getTools()).find((t) => t.name.endsWith('.add')) as Tool
    const ts = client.toolToTypeScriptInterface(addTool)
    for (const part of [
      'namespace test_tools',
      'interface addInput',
      'interface addOutput',
      'a: number',
      'b: number',
      'result: number',
      'operation: string',
    ]) {
      expect(ts).toContain(part)
    }
    // UTCP expects a comment 'Access as: test_tools.add(args)'; this client declares the function.
    expect(ts).toContain('function add(args: addInput): addOutput;')
  })

  it('generates every tool’s TypeScript interfaces', async () => {
    const all = await client.getAllToolsTypeScriptInterfaces()
    // UTCP expects its own header line, '// Auto-generated TypeScript interfaces for UTCP tools'.
    expect(all.startsWith('// TypeScript declarations of the UTCP tools')).toBe(true)
    for (const part of ['namespace test_tools', 'interface addInput', 'interface greetInput', 'interface processDataInput'])
      expect(all).toContain(part)
  })

  it('runs plain code', async () => {
    const { result } = await client.callToolChain('\n      const x = 5;\n      const y = 10;\n      return x + y;\n    ')
    expect(result).toBe(15)
  })

  // code-mode's tests call tools synchronously, typescript-utcp's with await: both work.
  describe.each([
    ['synchronous', ''],
    ['awaited', 'await '],
  ])('%s tool calls', (_form, w) => {
    it('calls a simple tool', async () => {
      const { result } = await client.callToolChain(`const result = ${w}test_tools.add({ a: 15, b: 25 });\nreturn result;`)
      expect(result).toEqual({ result: 40, operation: 'addition' })
      expect(called.add).toEqual({ a: 15, b: 25 })
    })

    it('makes several tool calls', async () => {
      const { result } = await client.callToolChain(
        `const mathResult = ${w}test_tools.add({ a: 10, b: 5 });
         const greetResult = ${w}test_tools.greet({ name: "Alice", formal: true });
         return { math: mathResult, greeting: greetResult, combined: \`\${greetResult.greeting} The sum is \${mathResult.result}\` };`,
      )
      expect(result.math.result).toBe(15)
      expect(result.greeting).toEqual({ greeting: 'Good day, Alice', isFormal: true })
      expect(result.combined).toBe('Good day, Alice The sum is 15')
      expect(called.add).toBeDefined()
      expect(called.greet).toBeDefined()
    })

    it('passes complex data structures', async () => {
      const { result } = await client.callToolChain(
        `const complexData = { users: [{ name: "John", age: 30 }, { name: "Jane", age: 25 }], settings: { theme: "dark", notifications: true } };
         return ${w}test_tools.processData({ data: complexData, options: { validate: true, transform: "uppercase" } });`,
      )
      expect(result.processedData.processed).toBe(true)
      expect(result.processedData.users).toBeDefined()
      expect(result.metadata).toEqual({ itemCount: 1, hasOptions: true })
      expect(called.processData.data.users.length).toBe(2)
      expect(called.processData.options.validate).toBe(true)
    })

    it('passes arrays', async () => {
      const { result } = await client.callToolChain(
        `const numbers = [1, 2, 3, 4, 5, 10];
         const stats = ${w}test_tools.sumArray({ numbers });
         return { original: numbers, statistics: stats, doubled: numbers.map(n => n * 2) };`,
      )
      expect(result.statistics).toEqual({ sum: 25, count: 6, average: 25 / 6 })
      expect(result.doubled).toEqual([2, 4, 6, 8, 10, 20])
      expect(called.sumArray.numbers).toEqual([1, 2, 3, 4, 5, 10])
    })

    it('calls a tool without parameters', async () => {
      const { result } = await client.callToolChain(
        `const timeResult = ${w}test_tools.getCurrentTime({});
         return { timeData: timeResult, isRecent: timeResult.timestamp > Date.now() - 5000 };`,
      )
      expect(result.timeData.timestamp).toBeDefined()
      expect(result.timeData.iso).toBeDefined()
      expect(result.isRecent).toBe(true)
      expect(called.getCurrentTime).toBeDefined()
    })

    it('throws tool errors into the program', async () => {
      const { result } = await client.callToolChain(
        `try {
           ${w}test_tools.throwError({ message: "Test error message" });
           return { error: false };
         } catch (error) {
           return { error: true, message: error.message, caught: true };
         }`,
      )
      expect(result).toEqual({ error: true, message: 'Test error message', caught: true })
    })

    it('runs a chain of operations', async () => {
      const { result } = await client.callToolChain(
        `const numbers = [5, 10, 15, 20];
         const arrayStats = ${w}test_tools.sumArray({ numbers });
         const addResult = ${w}test_tools.add({ a: arrayStats.sum, b: 100 });
         const greeting = ${w}test_tools.greet({ name: "CodeMode", formal: false });
         const finalData = ${w}test_tools.processData({
           data: { arrayStats, addResult, greeting, executionTime: Date.now() },
           options: { includeMetadata: true, format: "enhanced" }
         });
         return {
           steps: { arrayProcessing: arrayStats, addition: addResult, greeting: greeting, finalProcessing: finalData },
           summary: { originalSum: arrayStats.sum, finalSum: addResult.result, greetingMessage: greeting.greeting, chainCompleted: true }
         };`,
        15_000,
      )
      expect(result.steps.arrayProcessing.sum).toBe(50)
      expect(result.steps.addition.result).toBe(150)
      expect(result.steps.greeting.greeting).toBe('Hey CodeMode!')
      expect(result.steps.finalProcessing.processedData.processed).toBe(true)
      expect(result.summary.chainCompleted).toBe(true)
      expect(called.add).toEqual({ a: 50, b: 100 })
      expect(called.greet).toEqual({ name: 'CodeMode', formal: false })
      expect(called.sumArray).toBeDefined()
      expect(called.processData).toBeDefined()
    })
  })

  it('ends an endless loop at the timeout', async () => {
    const result = await client.callToolChain('\n      while (true) {\n      }\n      return { completed: true };\n    ', 1000)
    expect(result.result).toBeNull()
    expect(result.logs.some((log) => log.includes('Code execution failed'))).toBe(true)
  })

  it('ends an endless loop of timers at the timeout (typescript-utcp’s version)', async () => {
    const code = 'while (true) {\n  await new Promise(resolve => setTimeout(resolve, 100));\n}\nreturn { completed: true };'
    const result = await client.callToolChain(code, 1000)
    expect(result.result).toBeNull()
    expect(result.logs.some((log) => log.includes('Code execution failed'))).toBe(true)
  })

  it('reports syntax errors', async () => {
    const result = await client.callToolChain('\n      const invalid syntax here\n      return result;\n    ')
    expect(result.result).toBeNull()
    expect(result.logs.some((log) => log.includes('Code execution failed'))).toBe(true)
  })

  it('has the JavaScript globals', async () => {
    const { result } = await client.callToolChain(
      'return { mathPi: Math.PI, dateNow: Date.now(), arrayMethods: Array.isArray([1, 2, 3]), jsonStringify: JSON.stringify({ test: true }), objectKeys: Object.keys({ a: 1, b: 2 }) };',
    )
    expect(result).toEqual({
      mathPi: Math.PI,
      dateNow: expect.any(Number),
      arrayMethods: true,
      jsonStringify: '{"test":true}',
      objectKeys: ['a', 'b'],
    })
  })

  it('has the TypeScript interfaces in the program', async () => {
    const { result } = await client.callToolChain(
      `return {
         hasInterfaces: typeof __interfaces === 'string',
         interfacesContainNamespace: __interfaces.includes('namespace test_tools'),
         canGetSpecificInterface: typeof __getToolInterface === 'function',
         addToolInterface: __getToolInterface('test_tools.add'),
         interfaceIsString: typeof __getToolInterface('test_tools.add') === 'string'
       };`,
    )
    expect(result).toMatchObject({
      hasInterfaces: true,
      interfacesContainNamespace: true,
      canGetSpecificInterface: true,
      interfaceIsString: true,
    })
    expect(result.addToolInterface).toBeTruthy()
  })

  it('returns the value of an async IIFE without a return (issue #33), with its console output', async () => {
    const plain = await client.callToolChain('\n(async () => {\n  const result = test_tools.add({ a: 7, b: 8 });\n  return result;\n})()\n')
    expect(plain.result).toEqual({ result: 15, operation: 'addition' })
    const logged = await client.callToolChain(
      "(async () => {\n  console.log('inside async iife');\n  const result = test_tools.add({ a: 100, b: 200 });\n  return result;\n})()",
    )
    expect(logged.result.result).toBe(300)
    expect(logged.logs).toContain('inside async iife')
  })

  it('supports chained calls at the top level (issue #33)', async () => {
    const { result } = await client.callToolChain(
      'const result = test_tools.add({ a: 3, b: 4 });\nconst doubled = test_tools.add({ a: result.result, b: result.result });\nreturn doubled;',
    )
    expect(result.result).toBe(14)
  })

  it('captures console.log', async () => {
    const { result, logs } = await client.callToolChain(
      `console.log('First log message');
       console.log('Number:', 42);
       console.log('Object:', { name: 'test', value: 123 });
       const addResult = test_tools.add({ a: 10, b: 20 });
       console.log('Addition result:', addResult);
       return addResult.result;`,
    )
    expect(result).toBe(30)
    expect(logs).toHaveLength(4)
    expect(logs[0]).toBe('First log message')
    expect(logs[1]).toBe('Number: 42')
    expect(logs[2]).toContain('"name": "test"')
    expect(logs[2]).toContain('"value": 123')
    expect(logs[3]).toContain('Addition result:')
    expect(logs[3]).toContain('"result": 30')
  })

  it('captures console.error, warn and info with their prefixes', async () => {
    const { result, logs } = await client.callToolChain(
      "console.log('Regular log');\nconsole.error('This is an error');\nconsole.warn('This is a warning');\nconsole.info('This is info');\nreturn 'done';",
    )
    expect(result).toBe('done')
    expect(logs).toEqual(['Regular log', '[ERROR] This is an error', '[WARN] This is a warning', '[INFO] This is info'])
  })
})

it('provides an agent prompt template', () => {
  const prompt = CodeModeUtcpClient.AGENT_PROMPT_TEMPLATE
  expect(typeof prompt).toBe('string')
  expect(prompt.length).toBeGreaterThan(0)
  for (const part of ['await manual.tool', '__interfaces', '__getToolInterface']) expect(prompt).toContain(part)
  // UTCP also expects its own section titles ('Tool Discovery Phase', 'Interface Introspection',
  // 'Code Execution Guidelines', 'Discover first, code second'): this client's prompt is its own text.
  expect(prompt).not.toContain('Tool Discovery Phase')
})
