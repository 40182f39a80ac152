/**
 * Stop requests that reach the replica running a turn. A request is kept for a while, so a turn still queued
 * when it is stopped stops as soon as a worker takes it.
 */
export interface TurnStopSignal {
  /** Asks whichever replica runs the turn to stop it. */
  request(chatId: string, turn: number): Promise<void>;
  /** True when a stop of the turn was requested (checked when a worker takes the turn). */
  requested(chatId: string, turn: number): Promise<boolean>;
  /** Calls `listener` on every stop request from any replica; resolves once listening. Returns the unsubscribe. */
  subscribe(listener: (chatId: string, turn: number) => void): Promise<() => Promise<void>>;
}
