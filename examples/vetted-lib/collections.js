// A small vetted utility library for guest programs: pure functions, no I/O.
export function groupBy(items, key) {
  const groups = {}
  for (const item of items) {
    const k = typeof key === 'function' ? key(item) : item[key]
    ;(groups[k] ??= []).push(item)
  }
  return groups
}

export function sumBy(items, key) {
  return items.reduce((total, item) => total + (typeof key === 'function' ? key(item) : item[key]), 0)
}

export function sortBy(items, key) {
  return [...items].sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0))
}
