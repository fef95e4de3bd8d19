import type { Primordials } from '@cordon/core/backend'

type Fn = (...args: never[]) => unknown

/**
 * Runs in every fresh isolate, before any guest code; shipped as source text (see
 * boot-source.ts), so self-contained. It keeps every value isolated-vm copies out of the isolate
 * a primitive: what the host callbacks are given, what the runtime's entry points return, and
 * what they throw (an error is rebuilt from its name and message, read without running getters).
 * The runtime only ever passes strings and numbers, and isolated-vm refuses to copy a thrown
 * object that is not an Error; this makes it a rule that no later change can break. It matters
 * most for typed arrays over resizable buffers: isolated-vm before 7.0.1 copies a view over a
 * buffer that has shrunk by its old length, reading past the end of the buffer's memory.
 */
export function sealBoundary(p: Primordials) {
  'use strict'
  const { apply, getOwnPropertyDescriptor, getPrototypeOf, dataValue, list } = p
  const constructors: Record<string, new (message: string) => Error> = {
    Error: p.ErrorCtor,
    TypeError: p.TypeErrorCtor,
    RangeError: p.RangeErrorCtor,
    SyntaxError: p.SyntaxErrorCtor,
    ReferenceError: p.ReferenceErrorCtor,
    EvalError: p.EvalErrorCtor,
    URIError: p.URIErrorCtor,
  }
  p.setPrototypeOf(constructors, null)

  function primitive(value: unknown): unknown {
    return (typeof value === 'object' && value !== null) || typeof value === 'function' ? undefined : value
  }

  /** A data property found on the object or its prototypes, without running any getter. */
  function inheritedData(object: object, key: string): unknown {
    let cursor: object | null = object
    for (let depth = 0; cursor !== null && depth < 100; depth++) {
      const descriptor = getOwnPropertyDescriptor(cursor, key)
      if (descriptor !== undefined) return dataValue(descriptor)
      cursor = getPrototypeOf(cursor) as object | null
    }
    return undefined
  }

  function plainThrown(error: unknown): unknown {
    if (primitive(error) === error) return error
    try {
      const name = inheritedData(error as object, 'name')
      const message = inheritedData(error as object, 'message')
      const Ctor = (typeof name === 'string' ? constructors[name] : undefined) ?? p.ErrorCtor
      return new Ctor(typeof message === 'string' ? message : '')
    } catch {
      // A guest proxy threw from a trap.
      return new p.ErrorCtor('')
    }
  }

  return {
    /** A host callback that only ever receives primitives. */
    outgoing(callback: Fn): Fn {
      return function (...args: never[]) {
        const out = list<unknown>()
        for (let i = 0; i < args.length; i++) out[i] = primitive(args[i])
        return apply(callback, undefined, out)
      }
    },
    /** A runtime entry point the host calls: returns nothing, throws only primitives or plain errors. */
    incoming(entry: Fn): Fn {
      return function (...args: never[]) {
        try {
          apply(entry, undefined, args)
        } catch (error) {
          throw plainThrown(error)
        }
      }
    },
  }
}
