/**
 * The guest's module registry, as script text. It lives in the function that wraps the program
 * (see link-program.ts), so it is fresh for every run and holds nothing of the host: module
 * factories, their exports objects and a table of records, all made by the guest itself.
 *
 * `__cordon_require__(specifier)` evaluates a module the first time it is asked for (its
 * factory gets its exports object and this same require, for its own imports) and returns its
 * exports, which are the module's namespace; a module being evaluated returns its exports so far
 * (a cycle); a module that threw throws the same error again. `ɪmport(specifier)` is what the
 * program's `import(specifier)` became: the same, as a promise. An async function makes the
 * promise, so a guest that replaced the global Promise cannot change what it is.
 *
 * Re-exports (`export *`, `export { x } from`) are getters in sucrase's output, and getters
 * cannot leave the sandbox in a result. When the outermost import returns, every module it
 * evaluated (a cycle included) is complete, so those getters become data properties holding
 * their values, as a real namespace's properties read: `return await import('x')` works. A
 * re-exported `let` that its module changes later is therefore not seen through the re-export.
 *
 * Plain string concatenation, no template literals: QuickJS compiles those to
 * String.prototype.concat calls, which the guest may have replaced.
 */
import { DYNAMIC_IMPORT_BINDING, REQUIRE_BINDING } from '../normalize/imports.js'

/** The parameters of the function each compiled module becomes (compile-module.ts); the registry calls it with them. */
export const MODULE_PARAMS = '(exports, require)'

export const REGISTRY_SOURCE = [
  'var __cordon_registry__;',
  'function ' + REQUIRE_BINDING + '(specifier) {',
  '  if (__cordon_registry__ === undefined) __cordon_registry__ = __cordon_registry_of__(__cordon_modules__());',
  '  return __cordon_registry__(specifier);',
  '}',
  'function ' + DYNAMIC_IMPORT_BINDING + '(specifier) {',
  '  return (async function () { return ' + REQUIRE_BINDING + '(specifier); })();',
  '}',
  'function __cordon_registry_of__(factories) {',
  '  var records = { __proto__: null };',
  '  var names = Object.getOwnPropertyNames, describe = Object.getOwnPropertyDescriptor, define = Object.defineProperty;',
  // Completed modules waiting for the outermost import to return; a null-prototype list, so
  // no accessor the guest put on Array.prototype runs.
  '  var completed = { __proto__: null }, count = 0, depth = 0;',
  '  function toData(exports) {',
  '    var keys = names(exports);',
  '    for (var i = 0; i < keys.length; i++) {',
  '      var d = describe(exports, keys[i]);',
  "      if (d !== undefined && typeof d.get === 'function') define(exports, keys[i], { __proto__: null, value: exports[keys[i]], writable: true, enumerable: true, configurable: true });",
  '    }',
  '  }',
  '  function require(specifier) {',
  "    var name = '' + specifier;",
  '    var record = records[name];',
  '    if (record !== undefined) {',
  '      if (record.failed) throw record.error;',
  '      return record.exports;',
  '    }',
  '    var factory = factories[name];',
  "    if (typeof factory !== 'function') throw new Error('Cannot find module \"' + name + '\": it is not one of the modules the host gave this run');",
  '    record = { __proto__: null, exports: {}, failed: false, error: undefined };',
  '    records[name] = record;',
  '    depth++;',
  '    try {',
  '      factory(record.exports, require);',
  '    } catch (error) {',
  '      record.failed = true;',
  '      record.error = error;',
  '      throw error;',
  '    } finally {',
  '      depth--;',
  '    }',
  '    completed[count++] = record.exports;',
  '    if (depth === 0) {',
  '      for (var i = 0; i < count; i++) toData(completed[i]);',
  '      completed = { __proto__: null };',
  '      count = 0;',
  '    }',
  '    return record.exports;',
  '  }',
  '  return require;',
  '}',
].join('\n')
