/**
 * Names a tool namespace or a global must not take: the guest's built-ins and the
 * globals cordon installs. Shadowing them would break guest code in confusing ways.
 */
export const RESERVED_GLOBAL_NAMES: ReadonlySet<string> = new Set([
  'globalThis', 'console', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask',
  'Object', 'Function', 'Array', 'Number', 'Boolean', 'String', 'Symbol', 'BigInt', 'Date', 'Promise',
  'RegExp', 'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError',
  'TypeError', 'URIError', 'SuppressedError', 'InternalError', 'JSON', 'Math', 'Intl', 'Reflect', 'Proxy',
  'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'FinalizationRegistry', 'ArrayBuffer', 'SharedArrayBuffer',
  'DataView', 'Atomics', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
  'Int32Array', 'Uint32Array', 'Float16Array', 'Float32Array', 'Float64Array', 'BigInt64Array',
  'BigUint64Array', 'Iterator', 'AsyncIterator', 'WebAssembly', 'eval', 'isFinite', 'isNaN', 'parseFloat',
  'parseInt', 'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape',
  'undefined', 'NaN', 'Infinity', 'arguments',
])

/** ECMAScript reserved words: not usable as a plain identifier in the guest. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do',
  'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in',
  'instanceof', 'let', 'new', 'null', 'return', 'static', 'super', 'switch', 'this', 'throw', 'true', 'try',
  'typeof', 'var', 'void', 'while', 'with', 'yield', 'implements', 'interface', 'package', 'private',
  'protected', 'public',
])

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED_WORDS.has(name)
}
