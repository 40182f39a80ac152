/** Rejects a producer's pending push once the consumer stopped reading: it unwinds the producer, then is dropped. */
class ConsumerStopped extends Error {
  constructor() {
    super('The consumer stopped reading.');
  }
}

/**
 * An async generator over the values `produce` pushes, at the consumer's pace: each push resolves when the
 * consumer asks for the next value. When the consumer stops early (`break`, `return()`), the pending push rejects,
 * so the producer unwinds (its `finally` blocks release what it holds) before the generator's return settles. What
 * `produce` throws otherwise is thrown to the consumer after the values pushed before it.
 */
export async function* pulled<T>(
  produce: (push: (value: T) => Promise<void>) => Promise<void>,
): AsyncGenerator<T, void> {
  const queue: T[] = [];
  let resume: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  let wake: (() => void) | undefined;
  let ended: { readonly failure?: { error: unknown } } | undefined;
  const push = (value: T): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      queue.push(value);
      resume = { resolve, reject };
      wake?.();
    });
  const running = produce(push).then(
    () => {
      ended = {};
    },
    (error: unknown) => {
      ended = error instanceof ConsumerStopped ? {} : { failure: { error } };
    },
  );
  void running.then(() => wake?.());
  try {
    for (;;) {
      if (queue.length > 0) {
        yield queue.shift() as T;
        const pending = resume;
        resume = undefined;
        pending?.resolve();
        continue;
      }
      if (ended?.failure) throw ended.failure.error;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    if (!ended) {
      resume?.reject(new ConsumerStopped());
      resume = undefined;
      await running;
    }
  }
}
