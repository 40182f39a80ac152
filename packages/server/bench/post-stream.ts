// The streaming POST of the server benches. The clients share the machine's cores with the server and the model,
// so they read with node:http (no web streams): what they cost is taken from the server. Each stream has a
// connection of its own, as each browser tab would (no idle pooled socket the server may close).
import { request } from 'node:http';

/** Milliseconds on the clock every bench process shares (the model stamps its tokens with it). */
export const now = (): number => performance.timeOrigin + performance.now();

/** POSTs `body` and calls `onChunk` with each piece of the answer's text and the time it arrived. */
export function postStream(
  url: string,
  body: string,
  onChunk: (text: string, at: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          accept: 'text/event-stream',
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`status ${response.statusCode}`));
          return;
        }
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => onChunk(chunk, now()));
        response.once('end', () => resolve());
        response.once('error', reject);
      },
    );
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}
