// A port on 127.0.0.1 that nothing listens on: bound to port 0, then released.
import { createServer } from 'node:net';

/**
 * Returns a loopback port with nothing listening: for a child process told which port to take, or for a test
 * that needs a connection to be refused. Another process could take it in between; on one machine running its
 * own tests that does not happen in practice.
 */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('the probe server has no TCP address');
  return address.port;
}
