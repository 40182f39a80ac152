import type { CodeInterpreter } from '@toolbus/sandbox';
import { omitUndefined } from '@toolbus/spec';
import { startSandboxEgressIfConnected } from '../egress/sandbox-egress.ts';
import type { BuiltInToolFactoriesOptions, TurnSkills } from './built-in-tool-factories.ts';
import { configuredInterpreter } from './configured-interpreter.ts';
import { createInProcessSandbox } from './in-process-sandbox.ts';

/** A turn's sandbox: the interpreter run_python and coding_agent run on, and the skills mounted in it. */
export interface TurnSandbox {
  readonly interpreter: CodeInterpreter;
  /** The skills the turn's runs mount (none on a configured sandbox service), and what the model is told of them. */
  readonly skills: TurnSkills;
}

const noSkills: TurnSkills = { names: [], root: undefined };

/**
 * The sandbox of one turn, made at its first use and then kept. The configured sandbox service, else the one this
 * process starts for itself (it says why when it cannot isolate), with network through the egress proxy when
 * someone can answer its approvals. The skills are asked for here, once per turn, and only for the in-process
 * sandbox (the only one that mounts them).
 */
export function turnSandbox(options: BuiltInToolFactoriesOptions): () => Promise<TurnSandbox> {
  let made: Promise<TurnSandbox> | undefined;
  return () => {
    made ??= makeTurnSandbox(options);
    return made;
  };
}

async function makeTurnSandbox(options: BuiltInToolFactoriesOptions): Promise<TurnSandbox> {
  if (options.interpreter !== undefined) return { interpreter: options.interpreter, skills: noSkills };
  const configured = configuredInterpreter(options.settings);
  if (configured !== undefined) {
    options.onClose(async () => configured.close());
    return { interpreter: configured.interpreter, skills: noSkills };
  }
  const given = typeof options.skills === 'function' ? await options.skills() : options.skills;
  const skills = given?.root === undefined ? noSkills : given;
  let inProcess = options.inProcessSandbox;
  if (inProcess === undefined) {
    const own = createInProcessSandbox({ skills });
    options.onClose(() => own.close());
    inProcess = own;
  }
  const approvals =
    options.egressApprovals ?? (options.egressAsk === undefined ? undefined : { ask: options.egressAsk });
  return {
    interpreter: inProcess.forTurn({
      onClose: options.onClose,
      skills,
      ...(approvals === undefined
        ? {}
        : {
            egress: () =>
              startSandboxEgressIfConnected({
                storage: options.storage,
                userId: options.userId,
                ...omitUndefined({ organizationId: options.organizationId }),
                caDirectory: options.egressCaDirectory,
                approvals,
                ...omitUndefined({ sessionId: options.egressApprovals?.sessionId }),
              }),
          }),
    }),
    skills,
  };
}
