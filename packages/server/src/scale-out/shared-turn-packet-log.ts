import type { StoredPacket } from '@toolbus/storage';

/** What one read of a {@link SharedTurnPacketLog} returned. */
export interface PacketLogRead {
  /** The packets after the cursor, in sequence order, without a gap. */
  readonly packets: readonly StoredPacket[];
  /** True when the log holds the turn's end and every packet before it was returned. */
  readonly ended: boolean;
}

/**
 * A turn's packets where every replica can read them while the turn runs elsewhere. Storage stays the record:
 * a packet is appended here only after storage has it, so a follower never sees a packet storage could lose, and
 * a packet a dead writer stored but did not append is appended by whoever closes the turn.
 */
export interface SharedTurnPacketLog {
  /** Appends stored packets; a sequence the log already holds is skipped (appending is idempotent). */
  append(chatId: string, turn: number, packets: readonly StoredPacket[]): Promise<void>;
  /** Marks the turn ended: readers drain and finish. The log may forget the turn some time after. */
  end(chatId: string, turn: number): Promise<void>;
  /** The highest sequence the log holds for the turn (0 when none). */
  lastSequence(chatId: string, turn: number): Promise<number>;
  /**
   * The packets after `after`; when there are none yet, waits up to `blockMs` for the next ones (an empty read
   * is a quiet turn, or one the log does not know).
   */
  read(
    chatId: string,
    turn: number,
    after: number,
    options: { readonly blockMs: number },
  ): Promise<PacketLogRead>;
}
