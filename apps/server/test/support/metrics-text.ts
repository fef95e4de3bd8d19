/** One sample's value from Prometheus text, e.g. `cordon_server_runs_total{backend="quickjs",code="OK"}`. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue
    const match = /^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line)
    if (match?.[1] !== name) continue
    const found = Object.fromEntries(
      (match[2] ?? '')
        .split(',')
        .filter(Boolean)
        .map((pair) => pair.split('=').map((part) => part.replace(/"/g, ''))),
    )
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3])
  }
  return 0
}

export async function metricsOf(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text()
}
