/** Browsers: no parse thread; callers parse on the page's thread (parse-thread.ts). */
import type { ParseAnswer, ParseJob } from './parse-thread.js'

export function askParseThread(_job: ParseJob): Promise<ParseAnswer | undefined> {
  return Promise.resolve(undefined)
}
