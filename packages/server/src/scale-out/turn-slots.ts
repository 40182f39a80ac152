/**
 * The per-user limit on turns running at once. A slot is held by a `holder` (one per turn) and taken atomically
 * against the limit; a shared implementation lets a slot lapse when its holder stops refreshing it (a dead
 * replica frees its slots by itself).
 */
export interface TurnSlots {
  /** Takes a slot for `holder` unless `userId` already holds `limit`; true when taken. */
  acquire(userId: string, holder: string, limit: number): Promise<boolean>;
  /** Keeps a slot alive while its turn runs. */
  refresh(userId: string, holder: string): Promise<void>;
  /** Frees a slot (nothing when it was not held). */
  release(userId: string, holder: string): Promise<void>;
  /** How often a running turn refreshes its slot (ms); undefined when slots never lapse. */
  readonly refreshIntervalMs?: number;
}

/** Slots of this process only: they never lapse (the process that holds them is the one that counts them). */
export class InProcessTurnSlots implements TurnSlots {
  readonly #held = new Map<string, Set<string>>();

  async acquire(userId: string, holder: string, limit: number): Promise<boolean> {
    const held = this.#held.get(userId) ?? new Set<string>();
    if (held.has(holder)) return true;
    if (held.size >= limit) return false;
    held.add(holder);
    this.#held.set(userId, held);
    return true;
  }

  async refresh(): Promise<void> {}

  async release(userId: string, holder: string): Promise<void> {
    const held = this.#held.get(userId);
    held?.delete(holder);
    if (held?.size === 0) this.#held.delete(userId);
  }
}
