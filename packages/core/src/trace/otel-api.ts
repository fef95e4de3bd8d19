/**
 * `@opentelemetry/api` is an optional peer dependency: loaded lazily, once, the first time a run
 * is traced. When it is not installed, runs are simply not traced (no error, no warning): the API
 * itself is a no-op until the application registers a tracer provider, so its absence means the
 * application does not collect traces.
 */
export type OtelApi = typeof import('@opentelemetry/api')

let loading: Promise<OtelApi | undefined> | undefined

/** The API, or undefined when it cannot be imported. `importer` is replaceable for tests. */
export function loadOtelApi(importer: () => Promise<OtelApi> = () => import('@opentelemetry/api')): Promise<OtelApi | undefined> {
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
