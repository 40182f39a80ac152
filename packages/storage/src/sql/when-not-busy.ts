import { setTimeout as sleep } from 'node:timers/promises';

/** How long a statement waits for another connection's write lock before `database is locked` (as busy_timeout did). */
const waitMs = 5_000;

/** SQLite's SQLITE_BUSY, with any extended code (the primary code is the low byte). */
export function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: unknown }).errcode;
  return typeof code === 'number' && (code & 0xff) === 5;
}

/**
 * Runs `attempt` (synchronous SQLite work that takes the write lock first, so a busy failure changed nothing), and
 * while another connection holds the lock, tries again after a short sleep. SQLite's own busy wait would block the
 * thread, and with it another connection of this process that holds the lock across its transaction's awaits.
 */
export async function whenNotBusy<Result>(attempt: () => Result): Promise<Result> {
  const deadline = Date.now() + waitMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 25)) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
    }
    await sleep(pause);
  }
}
