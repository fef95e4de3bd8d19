/**
 * The guest half of the namespaces: a module the program imports before its first line, which
 * puts one Proxy per provider and per connector on `globalThis`, then runs the providers' preludes.
 *
 * A provider's proxy answers any name: an own property (what a prelude defined) first, else the
 * cordon tool of that name called with the list of its arguments, else a function that rejects
 * with `Tool "name" not found`, as Cloudflare's executors do. A connector's proxy sends every
 * `name.method(args)` to the connector's one cordon tool. Cordon's own namespace objects stay in
 * this module's closures; the program sees only the proxies.
 */

/** The specifier of the module; `import` of it is the first statement of every program. */
export const NAMESPACES_MODULE = 'cordon:codemode-namespaces'

export interface NamespacePlan {
  /** Each provider's name, and whether cordon has tools under it (an empty provider has none). */
  providers: { name: string; hasTools: boolean }[]
  /** Each connector's name: one cordon tool of that name takes `{ method, args }`. */
  connectors: string[]
  /** Guest sources to run after the proxies exist, in the providers' order. */
  preludes: string[]
}

/** The module's source for one execution. */
export function namespacesModule(plan: NamespacePlan): string {
  const data = JSON.stringify({ providers: plan.providers, connectors: plan.connectors })
  // Built-ins are read once, here, before the program runs: what the program later does to
  // Object, Reflect or Error changes nothing in the proxies. The setup is a block of its own, so
  // that its names are not in the preludes' scope.
  return [
    '{',
    `const plan = ${data};`,
    'const hasOwn = Object.prototype.hasOwnProperty;',
    'const apply = Reflect.apply;',
    'const defineProperty = Object.defineProperty;',
    'const ProxyClass = Proxy;',
    'const ErrorClass = Error;',
    'const realm = globalThis;',
    'const owns = (object, key) => apply(hasOwn, object, [key]);',
    'const install = (name, proxy) => defineProperty(realm, name, { value: proxy, writable: true, configurable: true });',
    'for (const provider of plan.providers) {',
    '  const name = provider.name;',
    '  if (!provider.hasTools && name in realm) throw new ErrorClass("Provider name \\"" + name + "\\" is reserved");',
    '  const tools = provider.hasTools ? realm[name] : undefined;',
    '  install(name, new ProxyClass({}, {',
    '    get(own, key) {',
    '      if (owns(own, key)) return own[key];',
    '      if (typeof key !== "string") return undefined;',
    '      if (tools !== undefined && owns(tools, key)) {',
    '        const tool = tools[key];',
    '        return async (...args) => tool(args);',
    '      }',
    '      return async () => { throw new ErrorClass("Tool \\"" + key + "\\" not found"); };',
    '    },',
    '  }));',
    '}',
    'for (const name of plan.connectors) {',
    '  const tool = realm[name];',
    '  install(name, new ProxyClass({}, {',
    '    get(_, key) {',
    '      if (typeof key !== "string") return undefined;',
    '      return async (...args) => tool({ method: key, args: args[0] });',
    '    },',
    '  }));',
    '}',
    '}',
    // Each prelude in a block of its own: two providers' preludes cannot clash.
    ...plan.preludes.map((prelude) => `{\n${prelude}\n}`),
  ].join('\n')
}
