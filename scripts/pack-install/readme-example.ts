// The README's own example, taken from the README that ships in the tarball, made runnable.
import { readFileSync } from 'node:fs'
import ts from 'typescript'

/** The first fenced block in `lang` that mentions `mustContain`. */
export function readmeExample(readmePath: string, lang: 'ts' | 'js', mustContain: string): string {
  const readme = readFileSync(readmePath, 'utf8')
  for (const match of readme.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)) {
    if (match[1] === lang && match[2]!.includes(mustContain)) return match[2]!
  }
  throw new Error(`${readmePath} has no \`\`\`${lang} block containing ${mustContain}`)
}

/** TypeScript to an ES module (types stripped; the types project type-checks the same code). */
export function toEsm(source: string): string {
  return transpile(source, ts.ModuleKind.ESNext)
}

/**
 * The same program as a CommonJS script: its imports become require() calls (Node's
 * require(esm)), the rest runs in an async function since CJS has no top-level await.
 */
export function toCjs(source: string): string {
  const lines = source.split('\n')
  const imports = lines.filter((line) => line.startsWith('import '))
  const body = lines.filter((line) => !line.startsWith('import '))
  const wrapped = [
    ...imports,
    'async function main() {',
    ...body,
    '}',
    'main().catch((error) => { console.error(error); process.exitCode = 1 })',
  ]
  return transpile(wrapped.join('\n'), ts.ModuleKind.CommonJS)
}

function transpile(source: string, module: ts.ModuleKind): string {
  return ts.transpileModule(source, { compilerOptions: { module, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText
}
