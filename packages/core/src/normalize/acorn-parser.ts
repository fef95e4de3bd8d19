/**
 * acorn's Parser, with its scope bookkeeping made linear.
 *
 * acorn keeps the names declared in each scope in plain arrays and checks every new declaration
 * with `indexOf`, which is quadratic in the number of declarations in one scope: 40k top-level
 * `const`s take ~8 s to parse, so 1 MB of hostile (or merely generated) code could block the host
 * for a minute. This plugin swaps those arrays, once they grow past a few dozen names, for
 * arrays that also keep a Set, so `indexOf(name) === -1` (the only question acorn asks on the hot
 * path; a hit means a redeclaration error) is O(1).
 *
 * It touches one internal of acorn — `scopeStack` entries with `var` / `lexical` / `functions`
 * name arrays, and its `declareName` / `currentVarScope` methods — which is why acorn is pinned to an exact version in package.json. If a future
 * acorn changes that shape the plugin does nothing and acorn works as before (just slower).
 */
import { Parser } from 'acorn'

/** Build the lookup set only for scopes that actually grow; small scopes stay plain arrays. */
const SET_THRESHOLD = 32

class NameList extends Array<string> {
  private names: Set<string> | undefined

  // Derived arrays (slice, map…) must be plain arrays: acorn never makes any, but be safe.
  static override get [Symbol.species](): ArrayConstructor {
    return Array
  }

  override push(...items: string[]): number {
    if (this.names !== undefined) for (const item of items) this.names.add(item)
    return super.push(...items)
  }

  override indexOf(name: string, fromIndex?: number): number {
    if (this.length < SET_THRESHOLD || fromIndex !== undefined) return super.indexOf(name, fromIndex)
    if (this.names === undefined) this.names = new Set(this)
    return this.names.has(name) ? super.indexOf(name) : -1
  }
}

interface ScopeLike {
  var?: unknown
  lexical?: unknown
  functions?: unknown
}

interface ParserInternals {
  scopeStack?: ScopeLike[]
  currentVarScope?: () => ScopeLike
}

const KEYS = ['var', 'lexical', 'functions'] as const

/** Swaps a scope's name arrays for NameLists once they are big enough to matter. */
function upgrade(scope: ScopeLike): void {
  for (const key of KEYS) {
    const names = scope[key]
    if (Array.isArray(names) && names.length >= SET_THRESHOLD && !(names instanceof NameList)) {
      scope[key] = NameList.from(names as string[])
    }
  }
}

function linearScopes(Base: typeof Parser): typeof Parser {
  return class extends Base {
    // Before each declaration, upgrade the scopes acorn will search: the current one and, for
    // `var`, every scope up to the enclosing function/top-level scope. Upgrading lazily keeps
    // small programs free of extra allocations.
    declareName(name: string, bindingType: number, pos: number): void {
      const self = this as unknown as ParserInternals
      const stack = self.scopeStack
      if (Array.isArray(stack) && stack.length > 0) {
        const varScope = typeof self.currentVarScope === 'function' ? self.currentVarScope() : undefined
        for (let i = stack.length - 1; i >= 0; i--) {
          const scope = stack[i]!
          upgrade(scope)
          if (scope === varScope || varScope === undefined) break
        }
      }
      // @ts-expect-error — declareName is internal to acorn (not in its type declarations).
      // eslint-disable-next-line @typescript-eslint/no-unsafe-call
      super.declareName(name, bindingType, pos)
    }
  }
}

export const LinearParser: typeof Parser = Parser.extend(linearScopes)
