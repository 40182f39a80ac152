import type { StoredPacket } from '@toolbus/storage';
import type { SharedTurnPacketLog } from '../scale-out/shared-turn-packet-log.ts';
import type { ServerLogger } from '../server-logger.ts';

/** How long a mirror that fell behind waits before it tries the shared log again. */
const retryMs = 500;

/** How long a turn's end keeps being retried while the shared log is away (then its followers read storage). */
const endRetryWindowMs = 5 * 60_000;

/**
 * Copies one running turn's stored packets into the shared log (Redis), in order, as a cache: storage is the
 * record. A failed append never stops the turn: the mirror falls behind, tries again every half second from where
 * the log itself stands (a Redis that restarted empty is refilled from the start), and followers on other replicas
 * read storage meanwhile. The turn's end is written once the log holds every packet, retried in the background
 * while the log is away (until it is back, {@link endRetryWindowMs} passed, or `signal` aborted: the server
 * closes its connections).
 */
export class SharedLogMirror {
  readonly #log: SharedTurnPacketLog;
  readonly #chatId: string;
  readonly #turn: number;
  readonly #source: (after: number) => readonly StoredPacket[];
  readonly #logger: ServerLogger;
  /** The last sequence the log is known to hold (while not behind). */
  #mirrored: number;
  /** An append failed: the next attempt asks the log where it stands first. */
  #behind = false;
  /** The log refuses more (another replica ended the turn there): nothing more is copied. */
  #closed = false;
  #running: Promise<void> | undefined;
  #again = false;
  #retry: NodeJS.Timeout | undefined;
  /** Set by {@link end}: the deadline of its retries, and who waits for its first attempt. */
  #ending: { deadline: number; attempted: (() => void) | undefined } | undefined;
  readonly #signal: AbortSignal | undefined;

  constructor(options: {
    readonly log: SharedTurnPacketLog;
    readonly chatId: string;
    readonly turn: number;
    /** The turn's stored packets after a sequence (its live packets in memory). */
    readonly source: (after: number) => readonly StoredPacket[];
    /** The last sequence already in the log when the mirror starts. */
    readonly mirrored: number;
    readonly logger: ServerLogger;
    /** Aborted when the server closes: retries stop. */
    readonly signal?: AbortSignal;
  }) {
    this.#signal = options.signal;
    this.#log = options.log;
    this.#chatId = options.chatId;
    this.#turn = options.turn;
    this.#source = options.source;
    this.#mirrored = options.mirrored;
    this.#logger = options.logger;
  }

  /** Copies what was stored since the last call (at once, or with the next retry while the log is away). */
  sync(): void {
    if (this.#behind || this.#closed) return;
    this.#kick();
  }

  /**
   * Copies the rest and marks the turn ended in the log. Resolves after the first attempt: when the log is away,
   * the end is retried in the background, and followers meanwhile find the turn's end in storage, where they
   * look when the log stays quiet.
   */
  end(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#ending = { deadline: Date.now() + endRetryWindowMs, attempted: resolve };
      this.#kick();
    });
  }

  #kick(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop();
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      await this.#step();
    } while (this.#again && !this.#behind && !this.#closed);
    this.#running = undefined;
  }

  async #step(): Promise<void> {
    if (this.#closed) return;
    try {
      const from = this.#behind ? await this.#log.lastSequence(this.#chatId, this.#turn) : this.#mirrored;
      const packets = this.#source(from);
      await this.#log.append(this.#chatId, this.#turn, packets);
      this.#mirrored = packets.at(-1)?.sequence ?? from;
      if (this.#behind) {
        this.#behind = false;
        this.#logger.info('turn.log_caught_up', { chatId: this.#chatId, turn: this.#turn, sequence: from });
      }
      if (this.#ending) {
        await this.#log.end(this.#chatId, this.#turn);
        this.#close();
      }
    } catch (error) {
      if (codeOf(error) === 'turn_log_ended') {
        // Another replica closed the turn in the log (it took the turn over): its end stands.
        this.#close();
        return;
      }
      if (!this.#behind) {
        this.#logger.warn('turn.log_behind', {
          chatId: this.#chatId,
          turn: this.#turn,
          sequence: this.#mirrored,
          error: codeOf(error) ?? 'shared_log_unavailable',
        });
      }
      this.#behind = true;
      if (this.#signal?.aborted || (this.#ending && Date.now() > this.#ending.deadline)) {
        if (this.#ending)
          this.#logger.warn('turn.log_end_failed', { chatId: this.#chatId, turn: this.#turn });
        this.#close();
        return;
      }
      clearTimeout(this.#retry);
      this.#retry = setTimeout(() => this.#kick(), retryMs);
      this.#retry.unref();
    }
    this.#endAttempted();
  }

  /** Nothing more goes to the log. */
  #close(): void {
    clearTimeout(this.#retry);
    this.#closed = true;
    this.#endAttempted();
  }

  /** Tells {@link end}'s caller that the first attempt is over (later retries run unwatched). */
  #endAttempted(): void {
    const attempted = this.#ending?.attempted;
    if (!attempted || !this.#ending) return;
    this.#ending.attempted = undefined;
    attempted();
  }
}

function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}
