import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { EgressIdentity } from '../decision/egress-request.ts';
import { type EgressRunTokenRefusal, verifyEgressRunToken } from './egress-run-token.ts';
import { rawResponse, tokenRefusalBody } from './proxy-answers.ts';
import type { SocketMeta } from './proxy-connections.ts';
import { readTokenPreamble } from './read-token-preamble.ts';

/** Connection keys of token-identified connections; never a source address (those have no such prefix). */
const tokenConnectionPrefix = 'egress-token:';

/** How long a new TCP connection may take to send its first line before it is dropped. */
const preambleTimeoutMs = 10_000;

/**
 * The connections identified by a run's signed egress token (a relay's first line) rather than by their address:
 * their verified identities, held until the socket closes, and the refusals of those that are not.
 */
export class TokenConnections {
  readonly #identities = new Map<string, { identity: EgressIdentity; expiresAtMs: number }>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** True for a connection key this registry gave out (then {@link identity} answers, never the address). */
  owns(connection: string): boolean {
    return connection.startsWith(tokenConnectionPrefix);
  }

  /** The verified identity of a token connection, while its token has not expired. */
  identity(connection: string): EgressIdentity | undefined {
    const entry = this.#identities.get(connection);
    return entry === undefined || entry.expiresAtMs <= this.#now() ? undefined : entry.identity;
  }

  /** Why a request on this connection is refused for its token (forged, malformed, or expired since). */
  refusal(socketMeta: SocketMeta | undefined): EgressRunTokenRefusal | undefined {
    if (socketMeta?.tokenRefusal !== undefined) return socketMeta.tokenRefusal;
    const connection = socketMeta?.connection;
    if (connection === undefined || !this.owns(connection)) return undefined;
    return this.identity(connection) === undefined ? 'expired' : undefined;
  }

  /**
   * Reads a new TCP connection's first line before HTTP parsing starts, and tracks the socket as a token
   * connection (verified or refused) or as a plain one. Resolves false when the socket was answered and closed.
   */
  async admit(options: {
    readonly socket: Socket;
    readonly key: Uint8Array;
    readonly track: (socket: Socket, socketMeta: SocketMeta) => void;
    readonly onMalformed: () => void;
  }): Promise<boolean> {
    const { socket, track } = options;
    const preamble = await readTokenPreamble(socket, preambleTimeoutMs);
    if (socket.destroyed) return false;
    if (preamble.kind === 'token') {
      const check = verifyEgressRunToken(preamble.token, { key: options.key, now: this.#now() });
      if (check.ok) {
        const connection = `${tokenConnectionPrefix}${randomUUID()}`;
        this.#identities.set(connection, { identity: check.identity, expiresAtMs: check.expiresAtMs });
        socket.once('close', () => this.#identities.delete(connection));
        track(socket, { connection });
      } else {
        track(socket, { connection: undefined, tokenRefusal: check.reason });
      }
    } else if (preamble.kind === 'malformed') {
      // The line never ended properly: what follows cannot be told apart from it, so answer and hang up.
      options.onMalformed();
      socket.end(rawResponse(407, tokenRefusalBody('malformed')));
      return false;
    }
    return true;
  }
}
