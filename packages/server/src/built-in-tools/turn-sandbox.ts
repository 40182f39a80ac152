import type { CodeInterpreter } from '@toolbus/sandbox';
import { omitUndefined } from '@toolbus/spec';
import { startSandboxEgressIfConnected } from '../egress/sandbox-egress.ts';
import type { BuiltInToolFactoriesOptions } from './built-in-tool-factories.ts';
import { configuredInterpreter } from './configured-interpreter.ts';
import { createInProcessSandbox } from './in-process-sandbox.ts';

/** A turn's sandbox: the interpreter run_python and coding_agent run on, and the skills mounted in it. */
export interface TurnSandbox {
  readonly interpreter: CodeInterpreter;
  readonly skills: readonly string[];
}

/**
 * The sandbox of one turn, made at its first use and then kept. The configured sandbox service, else the one this
 * process starts for itself (it says why when it cannot isolate), with network through the egress proxy when
 * someone can answer its approvals.
 */
export function turnSandbox(options: BuiltInToolFactoriesOptions): () => TurnSandbox {
  let made: TurnSandbox | undefined;
  return () => {
    if (options.interpreter !== undefined) return { interpreter: options.interpreter, skills: [] };
    if (made !== undefined) return made;
    const configured = configuredInterpreter(options.settings);
    if (configured !== undefined) {
      options.onClose(async () => configured.close());
      made = { interpreter: configured.interpreter, skills: [] };
      return made;
    }
    let inProcess = options.inProcessSandbox;
    if (inProcess === undefined) {
      const own = createInProcessSandbox(omitUndefined({ skills: options.skills }));
      options.onClose(() => own.close());
      inProcess = own;
    }
    const approvals =
      options.egressApprovals ?? (options.egressAsk === undefined ? undefined : { ask: options.egressAsk });
    made = {
      interpreter: inProcess.forTurn({
        onClose: options.onClose,
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
      skills: inProcess.skills,
    };
    return made;
  };
}
