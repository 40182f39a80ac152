import { StorageError } from '../storage-error.ts';

/** A checkpoint as JSON text; `invalid_input` when the value has no JSON form. */
export function researchCheckpointJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) {
    throw new StorageError({ code: 'invalid_input', message: 'A research checkpoint needs a JSON value.' });
  }
  return json;
}

/**
 * The `conflict` of a checkpoint saved for a turn that ended: only the run of a running turn saves one (a
 * replica that lost the turn must not write after the one that finished it).
 */
export function checkpointTurnEnded(chatId: string, turn: number, status: string): StorageError {
  return new StorageError({
    code: 'conflict',
    message: `Turn ${turn} of chat ${JSON.stringify(chatId)} already ended (${status}): no checkpoint is saved for it.`,
  });
}
