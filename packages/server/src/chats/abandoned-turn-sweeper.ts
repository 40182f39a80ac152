import { ToolbusError } from '@toolbus/spec';
import type { ServerLogger } from '../server-logger.ts';
import type { TurnRunner } from './turn-runner.ts';

/** A running sweep of abandoned turns; stop it when the server closes. */
export interface AbandonedTurnSweeper {
  stop(): void;
}

/**
 * Closes turns recorded as running that no job and no worker has (their API replica died before queueing them):
 * once now, then every `intervalMs` (default 60 s), those older than `graceMs` (default 60 s). A sweep still
 * running when the next is due is not doubled; a failed one is logged (its code only) and tried again next time.
 */
export async function startAbandonedTurnSweeper(options: {
  readonly turns: TurnRunner;
  readonly logger: ServerLogger;
  readonly graceMs?: number | undefined;
  readonly intervalMs?: number | undefined;
}): Promise<AbandonedTurnSweeper> {
  const { turns, logger } = options;
  const graceMs = options.graceMs ?? 60_000;
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      const closed = await turns.closeAbandonedTurns({ graceMs });
      if (closed > 0) logger.warn('server.closed_abandoned_turns', { count: closed });
    } catch (error) {
      logger.warn('server.abandoned_sweep_failed', {
        error: ToolbusError.isInstance(error) ? error.code : 'internal_error',
      });
    } finally {
      sweeping = false;
    }
  };
  await sweep();
  const timer = setInterval(() => void sweep(), options.intervalMs ?? 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
