import { visibleLength } from './colors.js'

/**
 * Aligns cells into columns separated by two spaces. Cells may be coloured; widths count
 * visible characters. `align[i] === 'right'` right-aligns column i (numbers). The last
 * column is never padded, so lines carry no trailing blanks.
 */
export function formatTable(rows: readonly (readonly string[])[], align: readonly ('left' | 'right')[] = []): string[] {
  const widths: number[] = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))))
  return rows.map((row) =>
    row
      .map((cell, i) => {
        const pad = ' '.repeat((widths[i] ?? 0) - visibleLength(cell))
        if (align[i] === 'right') return pad + cell
        return i === row.length - 1 ? cell : cell + pad
      })
      .join('  ')
      .trimEnd(),
  )
}
