import { createInterface } from 'node:readline/promises';
import type { ApprovalDecision, ApprovalRequest } from '@toolbus/egress';
import type { CliIo } from './cli-io.ts';

/**
 * The CLI's approval broker callback: asks at the terminal whether sandboxed code may perform an ASK action
 * (yes once, yes for the rest of this chat, or no). Without a terminal nobody can answer, so it refuses.
 */
export function createTerminalApprovalAsk(
  io: CliIo,
): (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision> {
  return async (request, signal) => {
    const actions = request.actions.map((action) => action.type).join(', ');
    const what = `${request.method} ${request.destination} (${request.target.name}: ${actions})`;
    if (io.stdin === undefined || io.stdin.isTTY !== true) {
      io.stderr.write(
        `run_python asked to ${what}; there is no terminal to approve it, so it was refused.\n`,
      );
      return 'rejected';
    }
    const readline = createInterface({
      input: io.stdin,
      output: io.stderr as NodeJS.WritableStream,
      terminal: true,
    });
    try {
      const answer = (
        await readline.question(`\nrun_python wants to ${what}. Allow? [y]es / [s]ession / [N]o `, { signal })
      )
        .trim()
        .toLowerCase();
      if (answer === 'y' || answer === 'yes') return 'approved';
      if (answer === 's' || answer === 'session') return 'approved_for_session';
      return 'rejected';
    } catch {
      return 'rejected';
    } finally {
      readline.close();
    }
  };
}
