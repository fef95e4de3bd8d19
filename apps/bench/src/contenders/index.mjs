// Every contender, grouped by engine so that the table reads cordon, then the raw engine, then peers.
import { reasonOf } from '../reason.mjs'
import { cordonContenders } from './cordon.mjs'
import { coreOnlyContenders } from './core-only.mjs'
import { nodeVmContenders } from './node-vm.mjs'
import { peerContenders } from './peer-quickjs.mjs'
import { peerRunContenders } from './peer-run.mjs'
import { rawIvmContenders } from './raw-ivm.mjs'
import { rawNodeContenders } from './raw-node.mjs'
import { rawQuickJSContenders } from './raw-quickjs.mjs'
import { rawQuickJSWorkerContenders } from './raw-quickjs-worker.mjs'
import { remoteContenders } from './remote.mjs'

const byId = new Map(
  [
    ...cordonContenders,
    ...coreOnlyContenders,
    ...nodeVmContenders,
    ...peerContenders,
    ...peerRunContenders,
    ...rawIvmContenders,
    ...rawNodeContenders,
    ...rawQuickJSContenders,
    ...rawQuickJSWorkerContenders,
    ...remoteContenders,
  ].map((c) => [c.id, c]),
)

export const CONTENDER_ORDER = [
  'cordon-quickjs',
  'cordon-quickjs-inline',
  'cordon-quickjs-nopool',
  'raw-quickjs',
  'raw-quickjs-worker',
  'raw-quickjs-instance',
  'peer-sebastianwessel',
  'peer-run',
  'cordon-ivm',
  'cordon-ivm-nopool',
  'raw-ivm',
  'cordon-subprocess',
  'cordon-subprocess-node-vm',
  'cordon-subprocess-nopool',
  'raw-node-warm',
  'raw-ivm-child',
  'raw-node-spawn',
  'cordon-remote',
  'cordon-remote-fleet',
  'node-vm',
  'core-only',
]

/** Loads the contenders named in `ids` (default: all), in table order; one that cannot load is kept with `unavailable`. */
export async function loadContenders(ids = CONTENDER_ORDER) {
  const loaded = []
  for (const id of CONTENDER_ORDER.filter((id) => ids.includes(id))) {
    try {
      loaded.push(await byId.get(id).load())
    } catch (error) {
      loaded.push({ id, name: id, unavailable: reasonOf(error) })
    }
  }
  return loaded
}
