import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoredPacket } from '@toolbus/storage';
import type { LiveTurn } from '../chats/live-turn.ts';

/**
 * Serves one request on loopback with `handle`, reads the whole answer over real HTTP (pausing `pauseMs` after its
 * first chunk, so a writer meets a socket that refuses more), then closes the server.
 */
export async function readFromNode(
  handle: (outgoing: ServerResponse) => void,
  pauseMs = 0,
): Promise<string> {
  const server = createServer((_incoming, outgoing) => handle(outgoing));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    let paused = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (!paused && pauseMs > 0) {
        paused = true;
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
    return text;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/**
 * Publishes `packets` to a live turn one at a time, all at once, then finishes the turn: a turn outpacing its
 * reader. True when the socket refused a write meanwhile (else a test of waiting for drain tested nothing).
 */
export function outpaceReader(
  outgoing: ServerResponse,
  live: Pick<LiveTurn, 'publish' | 'finish'>,
  packets: readonly StoredPacket[],
): boolean {
  let refused = false;
  for (const packet of packets) {
    live.publish([packet]);
    // The writers write past the response to its socket once the head is out: either may be the one that refuses.
    if (outgoing.writableNeedDrain || outgoing.socket?.writableNeedDrain) refused = true;
  }
  live.finish();
  return refused;
}
