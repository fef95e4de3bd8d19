// Writes dist/quickjs-wasi.image after tsup: the engine image every quickjs-wasi engine is
// restored from, so that a fresh process does not evaluate the guest runtime to take its own.
// The same bytes for the same quickjs.wasm and guest runtime (taken with a fixed clock).
// dist-browser gets it too, with quickjs.wasm itself: in a page both are fetched from beside the
// browser build (a page cannot resolve the quickjs-wasi package's files).
import { copyFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { makeImageFile } from '../dist/image-maker.js'

const file = await makeImageFile()
writeFileSync(new URL('../dist/quickjs-wasi.image', import.meta.url), file)
writeFileSync(new URL('../dist-browser/quickjs-wasi.image', import.meta.url), file)
copyFileSync(
  createRequire(import.meta.url).resolve('quickjs-wasi/quickjs.wasm'),
  new URL('../dist-browser/quickjs-wasi.wasm', import.meta.url),
)
console.log(`dist/quickjs-wasi.image: ${(file.length / 1024).toFixed(0)} KiB`)
