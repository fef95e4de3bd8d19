export declare const CHROMIUM_PLACES: string[]
export declare const CHROMIUM_ARGS: string[]
export declare function chromiumExecutable(): string
