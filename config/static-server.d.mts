export interface StaticServer {
  url: string
  close(): Promise<void>
}

export declare function serveStatic(options: { dir: string; port?: number; isolated: boolean }): Promise<StaticServer>
