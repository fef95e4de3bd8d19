// Writes dist/quickjs-wasi.image after tsup: the engine image every quickjs-wasi engine is
// restored from, so that a fresh process does not evaluate the guest runtime to take its own.
// The same bytes for the same quickjs.wasm and guest runtime (taken with a fixed clock).
import { writeFileSync } from 'node:fs'
import { makeImageFile } from '../dist/image-maker.js'

const file = await makeImageFile()
writeFileSync(new URL('../dist/quickjs-wasi.image', import.meta.url), file)
console.log(`dist/quickjs-wasi.image: ${(file.length / 1024).toFixed(0)} KiB`)
