import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * Starts the backend-ivm file first: its install compiles isolated-vm when the run's mirror has no
 * binary for it (isolated-vm-mirror.ts).
 */
export class IvmFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const isIvm = (file: TestSpecification) => file.moduleId.endsWith('backend-ivm.test.ts')
    return [...sorted.filter(isIvm), ...sorted.filter((file) => !isIvm(file))]
  }
}
