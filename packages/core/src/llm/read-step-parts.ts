import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { takeDirectParts } from './direct-part-tap.ts';

/** How reading a step's parts ended. */
export type StepPartsRead =
  | { readonly kind: 'ended' }
  /** The stream failed: what its read threw. */
  | { readonly kind: 'failed'; readonly error: unknown }
  /** The handler asked to stop (an error part). */
  | { readonly kind: 'stopped' }
  /** The handler threw (or its promise rejected): the caller's own failure, not the model's. */
  | { readonly kind: 'threw'; readonly error: unknown }
  | { readonly kind: 'cancelled' };

/** What a part's handler answers: stop reading, wait for a promise before the next part, or go on. */
export type StepPartHandled = 'stop' | Promise<void> | undefined;

/** A step's parts being read. */
export interface StepPartReading {
  readonly done: Promise<StepPartsRead>;
  /** Stops reading (an abort, a stall): `done` settles as `cancelled`. */
  cancel(reason: unknown): void;
}

/**
 * Reads a model step's parts into `handle`, one at a time: taken as the socket delivers them when the stream is the
 * direct reader's over a node:http body (no read promise per part), else through the stream's reader.
 */
export function readStepParts(
  stream: ReadableStream<LanguageModelV4StreamPart>,
  handle: (part: LanguageModelV4StreamPart) => StepPartHandled,
): StepPartReading {
  let settle: (read: StepPartsRead) => void = () => {};
  const done = new Promise<StepPartsRead>((resolve) => {
    settle = resolve;
  });
  let over = false;
  const finish = (read: StepPartsRead): void => {
    if (over) return;
    over = true;
    settle(read);
  };
  // What one part makes; true when reading must not go on.
  const handlePart = (part: LanguageModelV4StreamPart): Promise<void> | boolean => {
    try {
      const handled = handle(part);
      if (handled === 'stop') finish({ kind: 'stopped' });
      else if (handled !== undefined) {
        return handled.then(undefined, (error: unknown) => finish({ kind: 'threw', error }));
      }
    } catch (error) {
      finish({ kind: 'threw', error });
    }
    return over;
  };
  const taken = takeDirectParts(stream, {
    part(part) {
      if (over) return undefined;
      const handled = handlePart(part);
      if (handled === true) taken?.stop();
      return handled instanceof Promise ? handled : undefined;
    },
    end: () => finish({ kind: 'ended' }),
    error: (error) => finish({ kind: 'failed', error }),
  });
  if (taken !== undefined) {
    // Parts the body had already delivered were handled during the take: one may have ended the reading.
    if (over) taken.stop();
    return {
      done,
      cancel() {
        finish({ kind: 'cancelled' });
        taken.stop();
      },
    };
  }
  const reader = stream.getReader();
  void (async () => {
    for (;;) {
      let next: ReadableStreamReadResult<LanguageModelV4StreamPart>;
      try {
        next = await reader.read();
      } catch (error) {
        finish({ kind: 'failed', error });
        return;
      }
      if (over) return;
      if (next.done) {
        finish({ kind: 'ended' });
        return;
      }
      const handled = handlePart(next.value);
      if (handled instanceof Promise) await handled;
      if (over) return;
    }
  })();
  return {
    done,
    cancel(reason) {
      finish({ kind: 'cancelled' });
      reader.cancel(reason).catch(() => undefined);
    },
  };
}
