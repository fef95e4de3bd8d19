// Copies an example with its QuickJS backend on the host's thread (`thread: 'inline'`) instead of
// in worker threads (the default), next to the original so that its imports resolve the same way.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export function inlineCopy(root, file) {
  const source = readFileSync(join(root, file), 'utf8')
  const rewritten = source.replaceAll('createQuickJSBackend()', "createQuickJSBackend({ thread: 'inline' })")
  if (rewritten === source) throw new Error(`${file} does not call createQuickJSBackend()`)
  const copy = `.inline-${file}`
  writeFileSync(join(root, copy), rewritten)
  return { file: copy, remove: () => rmSync(join(root, copy), { force: true }) }
}
