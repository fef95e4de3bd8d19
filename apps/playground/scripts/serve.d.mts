export interface PlaygroundServer {
  url: string
  close(): Promise<void>
}

export declare function servePlayground(options?: { port?: number; isolated?: boolean; dir?: string }): Promise<PlaygroundServer>
