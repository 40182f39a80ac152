import type { FetchFunction } from '@toolbus/spec';
// A recording wrapper around the real fetch: proves which requests went through the fetch we handed over.

/** One request seen by the recording fetch. */
export interface FetchRecord {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
}

/** `fetch` plus the list of every request it made. */
export function createRecordingFetch(): { readonly fetch: FetchFunction; readonly records: FetchRecord[] } {
  const records: FetchRecord[] = [];
  const recording: FetchFunction = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    records.push({ method, url, headers: new Headers(init?.headers) });
    return fetch(input, init);
  };
  return { fetch: recording, records };
}
