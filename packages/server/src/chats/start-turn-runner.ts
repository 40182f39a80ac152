import { TurnRunner } from './turn-runner.ts';

/**
 * The server's turn runner, started. Alone, the turns storage lists as running are a previous process's: each is
 * closed now, with a stop packet and a clear reason. With replicas (`scaleOut`), other replicas may be running
 * them: this one listens for stops and hand-overs instead, and a dead worker's turns are closed when the queue
 * delivers them again.
 */
export async function startTurnRunner(
  options: ConstructorParameters<typeof TurnRunner>[0],
): Promise<TurnRunner> {
  const turns = new TurnRunner(options);
  if (options.scaleOut) {
    await turns.listen();
  } else {
    const closed = await turns.closeInterruptedTurns();
    if (closed > 0) options.logger.warn('server.closed_interrupted_turns', { count: closed });
  }
  return turns;
}
