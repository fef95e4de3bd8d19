/**
 * The identifier a tool name is called by in the guest. Cloudflare's executors and type generators
 * map names the same way, so the names in the types the model reads are the names that work:
 * `-`, `.` and blanks become `_`, other characters that cannot be in an identifier go, a leading
 * digit gets a `_` before it, and a reserved word a `_` after it.
 */
export function guestToolName(name: string): string {
  let id = name.replace(/[-.\s]/g, '_').replace(/[^A-Za-z0-9_$]/g, '')
  if (id === '') return '_'
  if (/^[0-9]/.test(id)) id = `_${id}`
  return RESERVED.has(id) ? `${id}_` : id
}

/**
 * Words a tool is never called by: the keywords and literals of ECMAScript, the names strict mode
 * restricts, and the words ECMAScript 1–3 reserved for the future (older engines refuse them).
 */
const RESERVED: ReadonlySet<string> = new Set(
  [
    // keywords
    'break case catch class const continue debugger default delete do else export extends finally for',
    'function if import in instanceof new return super switch this throw try typeof var void while with',
    // literals, and names with a meaning of their own
    'null true false undefined arguments eval await yield let static enum',
    // ECMAScript 1–3 future reserved words
    'abstract boolean byte char double final float goto implements int interface long native package',
    'private protected public short synchronized throws transient volatile',
  ]
    .join(' ')
    .split(' '),
)
