import type { LanguageModelV4StreamPart, SharedV4Warning } from '@ai-sdk/provider';

/** Where a taken stream's parts go (see {@link takeDirectParts}). */
export interface DirectPartSink {
  /** A part. A promise holds the parts after it (and pauses the socket) until it settles; it must not reject. */
  part(part: LanguageModelV4StreamPart): void | Promise<void>;
  /** The body ended, after its last part. */
  end(): void;
  /** The body failed (with what the stream would have failed with), after the parts made before. */
  error(error: unknown): void;
}

/** A taken stream's parts: `stop` drops the body, and nothing more is delivered. */
export interface TakenParts {
  stop(): void;
}

/**
 * Where a node:http body's parts go: the web stream's queue, or the sink of a reader that took them. `part`
 * answers true when the reader is behind: the socket pauses until the pump's `caughtUp`.
 */
export interface PartOutlet {
  part(part: LanguageModelV4StreamPart): boolean;
  end(): void;
  error(error: unknown): void;
}

/** What a pump of a node:http body answers to its outlet. */
export interface PartPump {
  /** The reader has taken what it was behind on: reads go on. */
  caughtUp(): void;
  /** The reader stopped: the body is dropped. */
  stop(): void;
}

/** For each stream the direct reader made from a node:http body: how a reader takes its parts instead. */
export const partTakers = new WeakMap<
  ReadableStream<LanguageModelV4StreamPart>,
  (sink: DirectPartSink) => TakenParts | undefined
>();

/**
 * Takes the parts of a stream the direct reader made from a node:http body, handed to `sink` as each socket read
 * makes them, instead of reading the stream: no web stream, read promise or microtask per part (the turn's loop
 * reads a model step so). Undefined when the stream is not such a one or was read already; once taken, the
 * stream itself must not be read.
 */
export function takeDirectParts(
  stream: ReadableStream<LanguageModelV4StreamPart>,
  sink: DirectPartSink,
): TakenParts | undefined {
  return partTakers.get(stream)?.(sink);
}

/**
 * The outlet of a taken stream: parts go to `sink` at once, except while it is busy with a promise; those that come
 * meanwhile (the rest of one socket read: the socket is paused) wait in order, with the end or the failure.
 */
export function tapParts(
  sink: DirectPartSink,
  warnings: SharedV4Warning[],
  start: (outlet: PartOutlet) => PartPump,
): TakenParts {
  const waiting: (() => void | Promise<void>)[] = [];
  let busy = false;
  let pump: PartPump | undefined;
  const settled = (): void => {
    busy = false;
    while (waiting.length > 0) {
      const pending = (waiting.shift() as () => void | Promise<void>)();
      if (pending !== undefined) {
        busy = true;
        void pending.then(settled);
        return;
      }
    }
    pump?.caughtUp();
  };
  const deliver = (action: () => void | Promise<void>): boolean => {
    if (busy) {
      waiting.push(action);
      return true;
    }
    const pending = action();
    if (pending === undefined) return false;
    busy = true;
    void pending.then(settled);
    return true;
  };
  deliver(() => sink.part({ type: 'stream-start', warnings }));
  pump = start({
    part: (part) => deliver(() => sink.part(part)),
    end: () => void deliver(() => sink.end()),
    error: (error) => void deliver(() => sink.error(error)),
  });
  const started = pump;
  return { stop: () => started.stop() };
}
