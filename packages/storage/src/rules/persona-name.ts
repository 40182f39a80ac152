import { omitUndefined } from '@toolbus/spec';
import { StorageError } from '../storage-error.ts';

/**
 * Persona names are unique ignoring case and surrounding spaces ("Support", " support " name one persona): people
 * pick a persona by its name (`toolbus persona use support`), so two that read the same would make that choice a
 * guess. Every backend stores the trimmed name and this key in a uniquely indexed column; the key is computed here,
 * not by the database, so SQLite (whose `lower` folds ASCII only) and PostgreSQL agree.
 */
export function personaNameKey(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * The `conflict` a create or rename gets when another persona has the name (as {@link personaNameKey} compares). It
 * names the stored persona as it is spelled (`taken`, read back after the refused write), which is the one a user
 * then picks, not the spelling that was asked for; that spelling follows when it differs.
 */
export function personaNameTaken(options: {
  readonly requested: string;
  /** The stored persona's name; undefined when it went away before it could be read (the requested one is used). */
  readonly taken: string | undefined;
  readonly cause?: unknown;
}): StorageError {
  const requested = options.requested.trim();
  const taken = options.taken ?? requested;
  const asked = taken === requested ? '' : ` ("${requested}" is the same name)`;
  return new StorageError({
    code: 'conflict',
    message: `A persona named "${taken}" already exists${asked}; persona names are unique, ignoring case and surrounding spaces.`,
    ...omitUndefined({ cause: options.cause }),
  });
}
