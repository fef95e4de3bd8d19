import { describeBackendAlone } from './backend-alone.js'

// isolated-vm 5 (Node 20) installs its prebuilt binary from the run's mirror of the workspace's
// build (isolated-vm-mirror.ts); without one, npm compiles it (~1 min, minutes on a slow VM).
describeBackendAlone({
  pkg: '@cordon/backend-ivm',
  prints: /ok: true,\n\s+value: 2,[\s\S]*backend: 'ivm'/,
  nodeArgs: ['--no-node-snapshot'],
})
