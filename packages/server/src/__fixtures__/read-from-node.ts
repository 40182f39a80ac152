import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
