/**
 * A value as it comes out of JSON, the way Mastra's own runner carries every value across (tool
 * arguments, tool results, the program's result): a Date becomes its ISO string, a Map `{}`,
 * `undefined` properties vanish, and a BigInt or a cycle throws JSON.stringify's TypeError.
 * `undefined` itself stays `undefined`.
 */
export function jsonValue(value: unknown): unknown {
  const text = JSON.stringify(value)
  return text === undefined ? undefined : (JSON.parse(text) as unknown)
}
