/** In a browser there is no engine child to start: select chooses as always. */
export async function startEngineEarly(_options?: unknown): Promise<void> {}
