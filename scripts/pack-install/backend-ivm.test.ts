import { describeBackendAlone } from './backend-alone.js'

// npm compiles isolated-vm here where no prebuilt binary matches this Node (Node 20: ~1 min).
describeBackendAlone({
  pkg: '@cordon/backend-ivm',
  prints: /ok: true,\n\s+value: 2,[\s\S]*backend: 'ivm'/,
  nodeArgs: ['--no-node-snapshot'],
})
