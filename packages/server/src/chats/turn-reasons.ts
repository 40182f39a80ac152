import { ToolbusError } from '@toolbus/spec';

/** The reason written on turns whose worker replica died while running them. */
export const WORKER_LOST_TURN_REASON =
  'The server replica running this turn stopped; the turn was closed by another replica and not run again, so no tool ran twice.';

/**
 * The reason written on turns recorded as running that no queued job and no worker replica had (the replica that
 * recorded it died before queueing it, or the job was lost): closed by the sweep, never run.
 */
export const ABANDONED_TURN_REASON =
  'No server replica was running this turn and none was going to (it was never queued, or its job was lost); it was closed by another replica and not run again.';

/** The reason written on a turn the queue refused: it never ran. */
export const NOT_QUEUED_TURN_REASON =
  'The turn could not be queued for a worker replica, so it never ran; send the message again.';

/** The reason written on turns that were running when this server was shut down (SIGINT, SIGTERM, `close()`). */
export const SHUTDOWN_TURN_REASON =
  'The server was shut down while this turn was running; it was stopped and closed before the process exited.';

/** The reason written on turns a dead process left running. */
export const INTERRUPTED_TURN_REASON =
  'The server stopped while this turn was running; it was closed at the next start.';

/** The reason written on a turn whose packets the database did not take within the retry window. */
export const STORAGE_FAILED_TURN_REASON =
  'The database did not answer for longer than the server retries a write, so the turn was stopped; what it stored before stays, and it was closed once the database answered again. Send the message again to continue.';

/** The abort reason of turns stopped because the server shuts down (not because their user stopped them). */
export const shutdownSignal = new ToolbusError({ code: 'server_shutdown', message: SHUTDOWN_TURN_REASON });

/** The abort reason of a turn stopped because storage failed (see {@link STORAGE_FAILED_TURN_REASON}). */
export const storageFailedSignal = new ToolbusError({
  code: 'storage_unavailable',
  message: STORAGE_FAILED_TURN_REASON,
});
