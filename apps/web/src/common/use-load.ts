import { useCallback, useEffect, useState } from 'react';
import { messageOf } from './api.ts';
import { retryRead } from './transient-failure.ts';

/** Loads a value (trying again by itself through a transient failure), with the failure as text and a reload. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
): {
  value: T | undefined;
  error: string | undefined;
  reload: () => void;
} {
  const [value, setValue] = useState<T | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [tick, setTick] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names the dependencies
  useEffect(() => {
    let live = true;
    const abort = new AbortController();
    retryRead(load, { signal: abort.signal })
      .then((loaded) => {
        if (live) {
          setValue(loaded);
          setError(undefined);
        }
      })
      .catch((failure) => live && setError(messageOf(failure)));
    return () => {
      live = false;
      abort.abort();
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((count) => count + 1), []);
  return { value, error, reload };
}

/** An action's runner and its state: its failure or success note for display, and whether it runs. */
export interface Action {
  run: (action: () => Promise<unknown>) => Promise<void>;
  error: string | undefined;
  note: string | undefined;
  busy: boolean;
}

/** Runs an action, keeping its failure (or success note) for display. */
export function useAction(): Action {
  const [error, setError] = useState<string | undefined>();
  const [note, setNote] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    setNote(undefined);
    try {
      const done = await action();
      if (typeof done === 'string') setNote(done);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  }, []);
  return { run, error, note, busy };
}
