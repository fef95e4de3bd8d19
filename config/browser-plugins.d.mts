import type { Plugin } from 'esbuild'

export declare const browserVariants: Plugin
export declare const nodeBuiltinsThrow: Plugin
export declare const browserPlugins: Plugin[]
