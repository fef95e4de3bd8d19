// Order statistics over a list of millisecond samples.
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  return { n: sorted.length, median: at(0.5), p95: at(0.95), min: sorted[0] }
}

export function formatMs(ms) {
  return ms >= 10 ? ms.toFixed(1) : ms.toFixed(3)
}
