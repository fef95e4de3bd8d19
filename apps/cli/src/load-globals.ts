import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { UsageError } from './usage-error.js'

/** `--globals <json-file>`: a JSON object whose keys become the guest's global variables. */
export async function loadGlobals(file: string): Promise<Record<string, unknown>> {
  let text: string
  try {
    text = await readFile(path.resolve(file), 'utf8')
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
    throw new UsageError(`cannot read --globals file ${file}: ${missing ? 'no such file' : (error as Error).message}`, { cause: error })
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`--globals file ${file} is not valid JSON: ${(error as Error).message}`, { cause: error })
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const got = Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : `a ${typeof parsed}`
    throw new UsageError(`--globals file ${file} must hold a JSON object (its keys become globals), got ${got}`)
  }
  return parsed as Record<string, unknown>
}
