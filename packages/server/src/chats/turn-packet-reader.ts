import { setTimeout as delay } from 'node:timers/promises';
import { omitUndefined } from '@toolbus/spec';
import type { Storage, StoredPacket } from '@toolbus/storage';
import type { ScaleOutBackend } from '../scale-out/scale-out-backend.ts';
import type { PacketLogRead } from '../scale-out/shared-turn-packet-log.ts';
import type { ServerLogger } from '../server-logger.ts';
import { errorCode } from './turn-closing.ts';

/** How long a follower of a turn running on another replica waits for packets before checking the turn's status. */
const sharedReadBlockMs = 1_000;

/** How often a follower reads storage for a turn running elsewhere while the shared log does not answer. */
const storagePollMs = 250;

const replayPageSize = 500;

/**
 * Reads a turn's packets that do not run in this process: replayed from storage, or followed live through the
 * shared log (Redis) while another replica runs the turn, storage filling in whatever the log lacks.
 */
export class TurnPacketReader {
  readonly #storage: Storage;
  readonly #logger: ServerLogger;

  constructor(options: { readonly storage: Storage; readonly logger: ServerLogger }) {
    this.#storage = options.storage;
    this.#logger = options.logger;
  }

  /**
   * A turn running (or queued) on another replica: its packets from the shared log, live. Storage is the record
   * and the log a cache: when the log stays quiet and storage says the turn ended (the log forgot it, or its
   * writer could not append), when the log holds the end, and while the log does not answer (Redis away), the
   * rest comes from storage, which has every packet the log has.
   */
  async *followShared(
    scaleOut: ScaleOutBackend,
    chatId: string,
    turn: number,
    after: number,
    signal?: AbortSignal,
  ): AsyncGenerator<StoredPacket> {
    let cursor = after;
    let ended = await this.#endedYet(chatId, turn, signal);
    for (;;) {
      if (signal?.aborted) return;
      let read: PacketLogRead;
      try {
        read = await scaleOut.packets.read(chatId, turn, cursor, { blockMs: ended ? 0 : sharedReadBlockMs });
      } catch (error) {
        this.#logger.warn('turn.follow_from_storage', { chatId, turn, error: errorCode(error) });
        for await (const packet of this.replay(chatId, turn, cursor, signal)) {
          yield packet;
          cursor = packet.sequence;
        }
        if (ended) return;
        ended = await this.#endedYet(chatId, turn, signal);
        if (!ended) await delay(storagePollMs, undefined, omitUndefined({ signal })).catch(() => undefined);
        continue;
      }
      for (const packet of read.packets) {
        if (signal?.aborted) return;
        yield packet;
        cursor = packet.sequence;
      }
      if (read.packets.length > 0 && !read.ended) continue;
      if (!read.ended && !ended) {
        // Quiet: still running (or queued), or it ended while this read waited. When it ended, the next read
        // does not wait, and finds the log's end or falls through to storage.
        ended = await this.#endedYet(chatId, turn, signal);
        continue;
      }
      // The log's end, or a quiet log of an ended turn: storage has anything the log lacks (usually nothing).
      yield* this.replay(chatId, turn, cursor, signal);
      return;
    }
  }

  /**
   * {@link #ended} for a follower: false while storage does not answer (PostgreSQL restarting), after a pause,
   * so the follower goes on reading the log and asks again.
   */
  async #endedYet(chatId: string, turn: number, signal: AbortSignal | undefined): Promise<boolean> {
    try {
      return await this.ended(chatId, turn);
    } catch (error) {
      this.#logger.warn('turn.follow_status_unavailable', { chatId, turn, error: errorCode(error) });
      await delay(storagePollMs, undefined, omitUndefined({ signal })).catch(() => undefined);
      return false;
    }
  }

  /** Whether storage records the turn as ended (not running). */
  async ended(chatId: string, turn: number): Promise<boolean> {
    const record = await this.#storage.chats.getTurn({ chatId, turn });
    return record !== undefined && record.status !== 'running';
  }

  async *replay(
    chatId: string,
    turn: number,
    after: number,
    signal?: AbortSignal,
  ): AsyncGenerator<StoredPacket> {
    let cursor = after;
    for (;;) {
      const page = await this.#storage.chats.listPackets({
        chatId,
        turn,
        after: cursor,
        limit: replayPageSize,
      });
      for (const packet of page) {
        if (signal?.aborted) return;
        yield packet;
        cursor = packet.sequence;
      }
      if (page.length < replayPageSize) return;
    }
  }
}
