import type { CodeInterpreter } from '@toolbus/sandbox';
import type { HealthComponent, HealthComponentState, ServerLogger } from '@toolbus/server';
import { omitUndefined } from '@toolbus/spec';

/** The configured sandbox services, watched for `/health` and the server's log. */
export interface SandboxHealth extends HealthComponent {
  /** Resolves after the first check (the state until then is `ok`: not known to be down). */
  readonly ready: Promise<void>;
  close(): void;
}

/**
 * Asks the sandbox services' health every `intervalMs` (the pool's own `/health` round, or the one service's) and
 * keeps the answer for `GET /health`; each change is logged once, so an operator reads "sandbox.down" when every
 * service stops answering (run_python calls then say so to the model) and "sandbox.up" when one is back.
 */
export function watchSandboxHealth(options: {
  readonly interpreter: CodeInterpreter;
  readonly serviceCount: number;
  readonly logger: ServerLogger;
  readonly intervalMs?: number;
}): SandboxHealth {
  let state: HealthComponentState = { status: 'ok' };
  const check = async (): Promise<void> => {
    const down = (reason: string | undefined): HealthComponentState => ({
      status: 'down',
      detail: `${options.serviceCount > 1 ? `none of the ${options.serviceCount} sandbox services answers` : 'the sandbox service does not answer'}${reason ? ` (${reason})` : ''}: run_python calls fail until one is back`,
    });
    const next = await options.interpreter.health().then(
      (answer): HealthComponentState =>
        answer.status === 'ok'
          ? { status: 'ok' }
          : answer.status === 'degraded'
            ? { status: 'degraded', detail: answer.reason ?? 'degraded' }
            : down(answer.reason),
      () => down(undefined),
    );
    if (next.status !== state.status) {
      const fields = {
        services: options.serviceCount,
        ...omitUndefined({ detail: next.detail || undefined }),
      };
      if (next.status === 'ok') options.logger.info('sandbox.up', fields);
      else options.logger.warn(`sandbox.${next.status}`, fields);
    }
    state = next;
  };
  const ready = check();
  const timer = setInterval(() => void check(), options.intervalMs ?? 5000);
  timer.unref();
  return {
    name: 'sandbox',
    state: () => state,
    ready,
    close: () => clearInterval(timer),
  };
}
