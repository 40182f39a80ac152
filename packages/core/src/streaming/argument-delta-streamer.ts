import { parse } from 'jsonriver';

/** String growth per top-level argument key since the previous fragment: `{ code: "new chars" }`. */
export type ArgumentDeltas = Record<string, string>;

/**
 * Streams the string-valued arguments of tool calls while the model is still writing them, so the UI shows long
 * arguments (python's code) as they are typed:
 * each call index gets its own incremental JSON parser (`jsonriver`), and each fragment returns only the new
 * characters of top-level string values. Numbers, booleans, arrays and objects are never streamed (the final
 * call carries them). Escapes split across fragments are decoded by the parser; invalid JSON ends streaming
 * for that index quietly.
 */
export interface ArgumentDeltaStreamer {
  /** Feeds one argument fragment of the call at `index`; resolves to the new string characters per key. */
  push(index: number, fragment: string): Promise<ArgumentDeltas>;
  /** Ends the call at `index` (its argument string is complete) and releases its parser. */
  end(index: number): Promise<ArgumentDeltas>;
}

type Outcome = { kind: 'value'; result: IteratorResult<unknown> } | { kind: 'error' } | { kind: 'starved' };

/** A push-fed async iterable of fragments that reports when the parser waits for input it has not got. */
class FragmentChannel implements AsyncIterable<string> {
  readonly #queue: string[] = [];
  #waiting: ((result: IteratorResult<string>) => void) | undefined;
  #onStarved: (() => void) | undefined;
  #closed = false;

  get starved(): boolean {
    return this.#waiting !== undefined;
  }

  push(fragment: string): void {
    if (this.#waiting) {
      const resolve = this.#waiting;
      this.#waiting = undefined;
      resolve({ value: fragment, done: false });
    } else {
      this.#queue.push(fragment);
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#waiting) {
      const resolve = this.#waiting;
      this.#waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  whenStarved(): Promise<Outcome> {
    return new Promise((resolve) => {
      this.#onStarved = () => resolve({ kind: 'starved' });
      if (this.starved) this.#onStarved();
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: () => {
        const fragment = this.#queue.shift();
        if (fragment !== undefined) return Promise.resolve({ value: fragment, done: false });
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiting = resolve;
          this.#onStarved?.();
        });
      },
    };
  }
}

interface CallState {
  readonly channel: FragmentChannel;
  readonly iterator: AsyncIterator<unknown>;
  readonly emittedLengths: Map<string, number>;
  pending: Promise<Outcome> | undefined;
  finished: boolean;
  /** Pushes to one call are handled one after another even when the caller does not await each push. */
  queue: Promise<unknown>;
}

/** Creates an {@link ArgumentDeltaStreamer}. */
export function createArgumentDeltaStreamer(): ArgumentDeltaStreamer {
  const calls = new Map<number, CallState>();

  function stateFor(index: number): CallState {
    let state = calls.get(index);
    if (!state) {
      const channel = new FragmentChannel();
      state = {
        channel,
        iterator: parse(channel)[Symbol.asyncIterator](),
        emittedLengths: new Map(),
        pending: undefined,
        finished: false,
        queue: Promise.resolve(),
      };
      calls.set(index, state);
    }
    return state;
  }

  async function drain(state: CallState, untilDone: boolean): Promise<ArgumentDeltas> {
    const deltas: ArgumentDeltas = {};
    while (!state.finished) {
      state.pending ??= state.iterator.next().then(
        (result): Outcome => ({ kind: 'value', result }),
        (): Outcome => ({ kind: 'error' }),
      );
      const outcome = untilDone
        ? await state.pending
        : await Promise.race([state.pending, state.channel.whenStarved()]);
      if (outcome.kind === 'starved') break;
      state.pending = undefined;
      if (outcome.kind === 'error' || outcome.result.done) {
        state.finished = true;
        break;
      }
      collectGrowth(outcome.result.value, state.emittedLengths, deltas);
    }
    return deltas;
  }

  return {
    push(index, fragment) {
      const state = stateFor(index);
      if (typeof fragment !== 'string' || fragment.length === 0) return Promise.resolve({});
      const result = state.queue.then(() => {
        if (state.finished) return {};
        state.channel.push(fragment);
        return drain(state, false);
      });
      state.queue = result;
      return result;
    },
    end(index) {
      const state = calls.get(index);
      if (!state) return Promise.resolve({});
      calls.delete(index);
      const result = state.queue.then(() => {
        state.channel.close();
        return drain(state, true);
      });
      state.queue = result;
      return result;
    },
  };
}

function collectGrowth(value: unknown, emittedLengths: Map<string, number>, deltas: ArgumentDeltas): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  for (const [key, item] of Object.entries(value)) {
    if (typeof item !== 'string') continue;
    const emitted = emittedLengths.get(key) ?? 0;
    if (item.length <= emitted) continue;
    deltas[key] = (deltas[key] ?? '') + item.slice(emitted);
    emittedLengths.set(key, item.length);
  }
}
