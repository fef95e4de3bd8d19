// Amounts in cents, so sums stay exact. TypeScript: cordon strips the types.
import { sumBy } from 'collections'

export interface Line {
  item: string
  cents: number
}

export function total(lines: Line[]): number {
  return sumBy(lines, 'cents')
}

export function format(cents: number, currency: string = 'EUR'): string {
  return (cents / 100).toFixed(2) + ' ' + currency
}
