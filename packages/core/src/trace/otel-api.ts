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

/** The API, or undefined when it cannot be imported. `importer` is replaceable for tests. */
export function loadOtelApi(
  importer: () => Promise<OtelApi> = () => import(/* @vite-ignore */ /* webpackIgnore: true */ OTEL_API) as Promise<OtelApi>,
): Promise<OtelApi | undefined> {
  loading ??= importer().then(
    (api) => api,
    () => undefined,
  )
  return loading
}

/** Forgets the cached load (tests only). */
export function resetOtelApi(): void {
  loading = undefined
}
