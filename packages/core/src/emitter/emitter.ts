import type { Packet, PacketObject, Placement } from '@toolbus/spec';
import type { PacketSink } from './packet-sink.ts';

/** Options for {@link Emitter}. */
export interface EmitterOptions {
  /** Stamped on every packet: which model produced it (multi-model comparison). Default 0. */
  readonly modelIndex?: number;
  /** Called synchronously for every packet, in addition to the async iterable (e.g. to persist). */
  readonly onPacket?: (packet: Packet) => void;
}

/**
 * The turn's packet stream. Producers call `emitAt`; one consumer reads it with `for await`. Every packet is
 * stamped with the emitter's model index. After `close()` further emits are dropped and the iteration ends once
 * the buffered packets are read.
 */
export class Emitter implements PacketSink, AsyncIterable<Packet> {
  readonly modelIndex: number;
  readonly #onPacket: ((packet: Packet) => void) | undefined;
  readonly #buffer: Packet[] = [];
  #readIndex = 0;
  #waiting: ((result: IteratorResult<Packet>) => void) | undefined;
  #closed = false;
  #iterated = false;
  /** The consumer of {@link Emitter.consume}, and what resolves its promise at `close()`. */
  #consumer: { readonly onPacket: (packet: Packet) => void; readonly closed: () => void } | undefined;

  constructor(options: EmitterOptions = {}) {
    this.modelIndex = options.modelIndex ?? 0;
    this.#onPacket = options.onPacket;
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  emitAt(placement: Placement, obj: PacketObject): void {
    if (this.#closed) return;
    const packet: Packet = { placement, modelIndex: this.modelIndex, obj };
    this.#onPacket?.(packet);
    if (this.#consumer) {
      this.#consumer.onPacket(packet);
      return;
    }
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      waiting({ value: packet, done: false });
    } else {
      this.#buffer.push(packet);
    }
  }

  /** Ends the stream: the consumer's loop finishes after the packets already emitted. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ value: undefined, done: true });
    this.#consumer?.closed();
  }

  /**
   * The one consumer, reading without the async iterator: each packet handed to `onPacket` as it is emitted (those
   * emitted before, first), with no promise or microtask per packet. Resolves at `close()`. What `onPacket` throws
   * goes to the producer that emitted the packet.
   */
  consume(onPacket: (packet: Packet) => void): Promise<void> {
    if (this.#iterated) throw new Error('An Emitter has one consumer; it is already being read.');
    this.#iterated = true;
    for (let index = this.#readIndex; index < this.#buffer.length; index += 1)
      onPacket(this.#buffer[index] as Packet);
    this.#buffer.length = 0;
    this.#readIndex = 0;
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#consumer = { onPacket, closed: resolve };
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<Packet> {
    if (this.#iterated) throw new Error('An Emitter has one consumer; it is already being read.');
    this.#iterated = true;
    return {
      next: () => {
        if (this.#readIndex < this.#buffer.length) {
          const value = this.#buffer[this.#readIndex] as Packet;
          this.#readIndex += 1;
          // Drop the consumed prefix now and then, so a long stream does not keep every packet alive.
          if (this.#readIndex > 1024 && this.#readIndex * 2 > this.#buffer.length) {
            this.#buffer.splice(0, this.#readIndex);
            this.#readIndex = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiting = resolve;
        });
      },
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
