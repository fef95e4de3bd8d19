/** Browsers: no parse thread; callers parse on the page's thread (parse-thread.ts). */
import type { ParseAnswer, ParseJob } from './parse-thread.js'

export const PARSE_HERE_MAX_CHARS = Infinity

export function askParseThread(_job: ParseJob): Promise<ParseAnswer | undefined> {
  return Promise.resolve(undefined)
}
