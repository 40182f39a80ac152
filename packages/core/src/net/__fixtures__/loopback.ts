// Test support for the guarded fetch: a scripted resolver and a socket factory that never dials anything but
// 127.0.0.1, whatever address the guard hands it (the server itself is startLoopbackHttpServer from ../../testing).
import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import type { GuardedConnect, GuardedLookup } from '../guarded-connector.ts';

/** A resolver answering from a table; each name may have a list of answers used in turn (the last repeats). */
export function scriptedLookup(answers: Record<string, ReadonlyArray<readonly string[]>>): GuardedLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = (hostname: string, _options: { all: true }, callback: Parameters<GuardedLookup>[2]) => {
    const script = answers[hostname];
    const index = calls.filter((name) => name === hostname).length;
    calls.push(hostname);
    const answer = script?.[Math.min(index, script.length - 1)];
    if (answer === undefined) {
      setImmediate(() => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []));
      return;
    }
    setImmediate(() => callback(null, answer.map((address) => ({ address, family: isIP(address) }))));
  };
  return Object.assign(lookup, { calls });
}

/**
 * A socket factory that records the (already checked) address and TLS server name it was asked to dial, then
 * dials 127.0.0.1 on the same port instead. Tests use it to prove the allowed path end to end without leaving
 * the machine.
 */
export function loopbackConnect(tlsOptions: { ca?: string } = {}): GuardedConnect & { dialed: Array<{ hostname: string; servername: string | undefined }> } {
  const inner = buildConnector(tlsOptions);
  const dialed: Array<{ hostname: string; servername: string | undefined }> = [];
  const connect: GuardedConnect = (options, callback) => {
    dialed.push({ hostname: options.hostname, servername: options.servername ?? undefined });
    inner({ ...options, hostname: '127.0.0.1' }, callback);
  };
  return Object.assign(connect, { dialed });
}
