import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Starts the backend-ivm file first: compiling isolated-vm is the step's long pole. */
export class IvmFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const isIvm = (file: TestSpecification) => file.moduleId.endsWith('backend-ivm.test.ts')
    return [...sorted.filter(isIvm), ...sorted.filter((file) => !isIvm(file))]
  }
}
