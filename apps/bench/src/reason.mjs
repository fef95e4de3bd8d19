// An error as one line for the tables and the JSON (a child's stderr tail can span many lines).
export function reasonOf(error) {
  return String(error?.message ?? error)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 400)
}
