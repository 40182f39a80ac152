/** What the model server last answered: enough to explain a failure (never headers' values or bodies). */
export interface ModelResponseObservation {
  readonly origin: string;
  readonly path: string;
  /** 0 while (or when) no response came. */
  readonly status: number;
  /** The media type without parameters (`text/html`, `application/json`, `text/event-stream`). */
  readonly mediaType: string;
}

/** A fetch for the model's provider package that remembers how the server answered, and notices silence. */
export interface ObservedModelFetch {
  readonly fetch: typeof globalThis.fetch;
  /** The last response's status and media type, when one came. */
  last(): ModelResponseObservation | undefined;
  /** True when a request went without response headers past the notice time. */
  sawSilence(): boolean;
}

/**
 * Wraps fetch for the model: records each response's status and media type (so "the stream ended" can become
 * "the server sent an HTML page"), and calls `onSilence` once when a request has had no response headers for
 * `silenceNoticeMs`, so the user hears about a server that never answers after the first timeout, not the last.
 */
export function observeModelFetch(options: {
  readonly silenceNoticeMs: number;
  readonly onSilence: (origin: string) => void;
  readonly fetch?: typeof globalThis.fetch;
}): ObservedModelFetch {
  const inner = options.fetch ?? globalThis.fetch;
  let last: ModelResponseObservation | undefined;
  let noticed = false;
  const observed = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    last = { origin: url.origin, path: url.pathname, status: 0, mediaType: '' };
    const started = performance.now();
    const notice = () => {
      if (noticed) return;
      noticed = true;
      options.onSilence(url.origin);
    };
    const timer = setTimeout(notice, options.silenceNoticeMs);
    timer.unref?.();
    try {
      const response = await inner(input, init).catch((error: unknown) => {
        // The stall watchdog aborts at the same moment the notice is due: the first timeout is still reported.
        if (performance.now() - started >= options.silenceNoticeMs * 0.9) notice();
        throw error;
      });
      last = {
        origin: url.origin,
        path: url.pathname,
        status: response.status,
        mediaType: (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '',
      };
      return response;
    } finally {
      clearTimeout(timer);
    }
  }) as typeof globalThis.fetch;
  return { fetch: observed, last: () => last, sawSilence: () => noticed };
}
