/**
 * `@opentelemetry/api` is an optional peer dependency: loaded lazily, once, the first time a run
 * is traced. When it is not installed, runs are simply not traced (no error, no warning): the API
 * itself is a no-op until the application registers a tracer provider, so its absence means the
 * application does not collect traces.
 */
export type OtelApi = typeof import('@opentelemetry/api')

let loading: Promise<OtelApi | undefined> | undefined

/**
 * A variable, not a literal, in the import below: a bundler then leaves the optional peer to be
 * found at run time instead of failing the user's build where it is not installed (esbuild does).
 */
const OTEL_API: string = '@opentelemetry/api'

/**
 * The API, or undefined when it cannot be imported or nothing registered it yet. `importer` is
 * replaceable for tests.
 */
export function loadOtelApi(
  importer: () => Promise<OtelApi> = () => import(/* @vite-ignore */ /* webpackIgnore: true */ OTEL_API) as Promise<OtelApi>,
): Promise<OtelApi | undefined> {
  // Asked again on a later run: the application may register its provider after a first run.
  if (loading === undefined && !otelRegistered()) return Promise.resolve(undefined)
  loading ??= importer().then(
    (api) => api,
    () => undefined,
  )
  return loading
}

/**
 * Whether an application set up OpenTelemetry's API in this realm: every version keeps its
 * registrations (tracer provider, context manager) under `Symbol.for('opentelemetry.js.api.<major>')`
 * on the global object. Until then every span would be a no-op, and importing the API (~10 ms on a
 * first run) is skipped.
 */
function otelRegistered(): boolean {
  return Object.getOwnPropertySymbols(globalThis).some((symbol) => symbol.description?.startsWith('opentelemetry.js.api.') === true)
}

/** Forgets the cached load (tests only). */
export function resetOtelApi(): void {
  loading = undefined
}
