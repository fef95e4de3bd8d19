// Order statistics over a list of millisecond samples.
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  const total = sorted.reduce((sum, ms) => sum + ms, 0)
  // Runs per second back to back: samples over the time they took, not 1 / median.
  return { n: sorted.length, median: at(0.5), p95: at(0.95), min: sorted[0], runsPerSecond: (sorted.length * 1000) / total }
}

export function median(values) {
  return summarize(values).median
}

export function formatMs(ms) {
  if (ms === undefined) return '—'
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(3)
}

export function formatRate(perSecond) {
  if (perSecond === undefined) return '—'
  return perSecond >= 100 ? perSecond.toFixed(0) : perSecond.toFixed(1)
}
