import type { ModelStallPhase } from './model-errors.ts';

/**
 * One timer per model attempt that fires when the stream goes silent: `firstChunkMs` until the first chunk, then
 * `chunkMs` between chunks. Activity only moves a deadline; the timer re-arms itself lazily, so a fast stream costs
 * one clock read per chunk, not a timer. A timeout that is not a positive finite number disables that phase.
 */
export class StallWatchdog {
  readonly #firstChunkMs: number;
  readonly #chunkMs: number;
  readonly #onStall: (phase: ModelStallPhase, timeoutMs: number) => void;
  #phase: ModelStallPhase = 'first-chunk';
  #deadline = Number.POSITIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(options: {
    firstChunkMs: number;
    chunkMs: number;
    onStall: (phase: ModelStallPhase, timeoutMs: number) => void;
  }) {
    this.#firstChunkMs = options.firstChunkMs;
    this.#chunkMs = options.chunkMs;
    this.#onStall = options.onStall;
  }

  /** Starts waiting for the first chunk. */
  start(): void {
    this.#setDeadline(this.#firstChunkMs);
  }

  /** A chunk arrived. */
  activity(): void {
    if (this.#phase === 'first-chunk') {
      this.#phase = 'between-chunks';
      this.#setDeadline(this.#chunkMs);
      return;
    }
    if (this.#deadline !== Number.POSITIVE_INFINITY) this.#deadline = performance.now() + this.#chunkMs;
  }

  /** No more chunks are expected. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #setDeadline(timeoutMs: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!(timeoutMs > 0 && Number.isFinite(timeoutMs))) {
      this.#deadline = Number.POSITIVE_INFINITY;
      return;
    }
    this.#deadline = performance.now() + timeoutMs;
    this.#arm(timeoutMs);
  }

  #arm(delayMs: number): void {
    this.#timer = setTimeout(() => this.#check(), Math.min(Math.max(delayMs, 1), 2_147_483_647));
  }

  #check(): void {
    this.#timer = undefined;
    if (this.#stopped) return;
    const remaining = this.#deadline - performance.now();
    if (remaining > 0) {
      this.#arm(remaining);
      return;
    }
    this.stop();
    this.#onStall(this.#phase, this.#phase === 'first-chunk' ? this.#firstChunkMs : this.#chunkMs);
  }
}
