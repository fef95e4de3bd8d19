/** The differential corpus, one file per theme. */
import { arrays } from './arrays.js'
import { asyncTools } from './async-tools.js'
import { classes } from './classes.js'
import { collections } from './collections.js'
import { dates } from './dates.js'
import { errors } from './errors.js'
import { globals } from './globals.js'
import { json } from './json.js'
import { logs } from './logs.js'
import { numbers } from './numbers.js'
import { plainValues } from './plain-values.js'
import type { Program } from './program.js'
import { regex } from './regex.js'
import { shapes } from './shapes.js'
import { strings } from './strings.js'

export const CORPUS: { theme: string; programs: Program[] }[] = [
  { theme: 'arrays', programs: arrays },
  { theme: 'strings', programs: strings },
  { theme: 'json', programs: json },
  { theme: 'dates', programs: dates },
  { theme: 'regex', programs: regex },
  { theme: 'classes', programs: classes },
  { theme: 'collections', programs: collections },
  { theme: 'numbers', programs: numbers },
  { theme: 'async tools', programs: asyncTools },
  { theme: 'errors', programs: errors },
  { theme: 'logs', programs: logs },
  { theme: 'shapes', programs: shapes },
  { theme: 'globals', programs: globals },
  { theme: 'plain values', programs: plainValues },
]
