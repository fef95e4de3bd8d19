/**
 * The executor must call a tool by the name Cloudflare's type generators print for it, or the model
 * writes calls to names that do not exist: guestToolName against `generateTypes` of
 * `@cloudflare/codemode/tanstack-ai` for awkward names and every reserved word.
 */
import { generateTypes } from '@cloudflare/codemode/tanstack-ai'
import { toolDefinition } from '@tanstack/ai'
import { describe, expect, it } from 'vitest'
import { guestToolName } from '../src/index.js'

const RESERVED =
  'break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof new return super switch this throw try typeof var void while with null true false undefined arguments eval await yield let static enum abstract boolean byte char double final float goto implements int interface long native package private protected public short synchronized throws transient volatile'.split(
    ' ',
  )
const AWKWARD = [
  'get-weather',
  'github.list issues',
  '9lives',
  '',
  '$ok',
  'héllo wörld',
  '---',
  '@@',
  'constructor',
  'of',
  'async',
  'NaN',
  'Infinity',
  'get_weather',
]

describe('guestToolName', () => {
  it('gives every name the identifier Cloudflare’s generated types declare', () => {
    for (const name of [...AWKWARD, ...RESERVED]) {
      const types = generateTypes([toolDefinition({ name, description: 'd' })], 'codemode')
      const declared = /\n\t([^\s:]+): \(input:/.exec(types)?.[1]
      expect({ name, id: guestToolName(name) }).toEqual({ name, id: declared })
    }
  })
})
