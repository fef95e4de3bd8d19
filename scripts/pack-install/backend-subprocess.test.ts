import { describeBackendAlone } from './backend-alone.js'

describeBackendAlone({ pkg: '@cordon/backend-subprocess', prints: /^50\n$/ })
