import type { ExecutionQueue } from './execution-queue.ts';
import type { FileStore } from './file-store.ts';
import { HttpError } from './http-error.ts';
import type { InterpreterLimits } from './interpreter-limits.ts';
import type { IsolationReport } from './probe-isolation.ts';
import type { WorkspaceFileReference } from './request-validation.ts';
import type { SandboxExecutor } from './sandbox-executor.ts';
import type { SessionRegistry } from './session-registry.ts';
import { type SkillMount, type SkillsDirectory, unknownSkill } from './skills-directory.ts';
import type { StagedFile } from './workspace-files.ts';

/** Everything a route handler of the service works with, wired once by `startInterpreterServer`. */
export interface InterpreterService {
  readonly limits: InterpreterLimits;
  readonly executor: SandboxExecutor;
  readonly files: FileStore;
  readonly sessions: SessionRegistry;
  readonly queue: ExecutionQueue;
  /** What the start-up probe found. */
  readonly isolation: IsolationReport;
  /** Present when the service was given a skills root. */
  readonly skillsDirectory: SkillsDirectory | undefined;
  readonly log: (line: string) => void;
}

/** Refuses with 503 when the start-up probe found no usable sandbox. */
export function requireSandbox(service: InterpreterService): void {
  if (!service.isolation.sandbox) {
    throw new HttpError({
      status: 503,
      code: 'sandbox_unavailable',
      message: `no sandbox on this machine: ${service.isolation.reason ?? 'unknown reason'}`,
    });
  }
}

/** The stored files a request names, as files to stage; 404 for an id the store does not know. */
export function resolveInputs(
  service: InterpreterService,
  references: readonly WorkspaceFileReference[],
): StagedFile[] {
  return references.map((reference) => {
    if (!service.files.get(reference.fileId)) {
      throw new HttpError({ status: 404, code: 'file_not_found', message: `no file ${reference.fileId}` });
    }
    return { path: reference.path, sourcePath: service.files.pathOf(reference.fileId) };
  });
}

/** The skills a request names; without a skills root, any name is unknown. */
export async function resolveSkills(
  service: InterpreterService,
  names: readonly string[],
): Promise<SkillMount[]> {
  if (service.skillsDirectory !== undefined) return service.skillsDirectory.resolve(names);
  const [first] = names;
  if (first !== undefined) throw unknownSkill(first);
  return [];
}
