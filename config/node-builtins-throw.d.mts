import type { Plugin } from 'esbuild'

export declare const nodeBuiltinsThrow: Plugin
