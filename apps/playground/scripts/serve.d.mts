import type { StaticServer } from '../../../config/static-server.mjs'

export declare function servePlayground(options?: { port?: number; isolated?: boolean }): Promise<StaticServer>
