const MARK = '… [cut by cordon]'

/**
 * The guest runtime caps results and logs but not thrown errors; a guest throwing a huge
 * message would otherwise produce a frame over the host's cap. Cut message and stack here.
 */
export function capErrorPayload(payload: string, maxChars: number): string {
  if (payload.length <= maxChars) return payload
  let thrown: { name?: unknown; message?: unknown; stack?: unknown }
  try {
    thrown = JSON.parse(payload) as typeof thrown
  } catch {
    return JSON.stringify({ message: 'the guest threw an error too large to report' })
  }
  const budget = Math.max(64, Math.floor(maxChars / 2) - 256)
  const cut = (value: unknown) => (typeof value === 'string' && value.length > budget ? value.slice(0, budget) + MARK : value)
  return JSON.stringify({
    name: typeof thrown.name === 'string' ? thrown.name.slice(0, 200) : undefined,
    message: cut(thrown.message),
    stack: cut(thrown.stack),
  })
}
