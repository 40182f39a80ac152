import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback between a client (a storage's pool) and PostgreSQL that can lose the reply to one COMMIT:
 * the commit happens, and the client, its connection dropped, never learns it. What a network failure right after
 * COMMIT does to a deployment, made on purpose. It can also cut the network for a while (every connection).
 */
export interface CommitReplyLossProxy {
  /** The database's URL through the proxy (same user, password and database). */
  readonly url: string;
  /**
   * Arms the proxy for one transaction: the next one with a statement whose text includes `marker` commits, and its
   * connection drops once PostgreSQL has answered COMMIT, before the client reads that answer. Resolves then.
   */
  loseCommitReply(marker: string): Promise<void>;
  /** Drops every connection, and each new one as it comes, until {@link mend}: the database is out of reach. */
  cut(): void;
  mend(): void;
  close(): Promise<void>;
}

/** Protocol codes of the messages a client sends before its startup message, which have no type byte. */
const untypedRequests = new Set([80877103 /* SSL */, 80877104 /* GSS encryption */, 80877102 /* cancel */]);

/** One message of PostgreSQL's wire protocol: its type (none for the startup message) and its body. */
interface Message {
  readonly type: string | undefined;
  readonly bytes: Buffer;
  readonly body: Buffer;
}

/** Splits a byte stream into the protocol's messages; the first ones are untyped until the startup message. */
function messageReader(typedFromStart: boolean): (chunk: Buffer) => Message[] {
  let pending = Buffer.alloc(0);
  let typed = typedFromStart;
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    const messages: Message[] = [];
    for (;;) {
      const header = typed ? 5 : 4;
      if (pending.length < header) break;
      const length = pending.readInt32BE(header - 4) + (typed ? 1 : 0);
      if (pending.length < length) break;
      const bytes = pending.subarray(0, length);
      pending = pending.subarray(length);
      if (typed) {
        messages.push({ type: String.fromCharCode(bytes[0] as number), bytes, body: bytes.subarray(5) });
      } else {
        messages.push({ type: undefined, bytes, body: bytes.subarray(4) });
        if (!untypedRequests.has(bytes.readInt32BE(4))) typed = true;
      }
    }
    return messages;
  };
}

/** The SQL text of a simple query ('Q') or of a statement being prepared ('P': its name, then its text). */
function sqlOf(message: Message): string | undefined {
  if (message.type === 'Q') return message.body.toString('utf8', 0, message.body.indexOf(0));
  if (message.type !== 'P') return undefined;
  const start = message.body.indexOf(0) + 1;
  return message.body.toString('utf8', start, message.body.indexOf(0, start));
}

/** Starts a {@link CommitReplyLossProxy} in front of the database at `url` (a TestPostgres database's). */
export async function startCommitReplyLossProxy(url: string): Promise<CommitReplyLossProxy> {
  const target = new URL(url);
  let armed: { marker: string; lost: () => void; failed: (error: Error) => void } | undefined;
  const sockets = new Set<Socket>();
  let cut = false;
  const proxy = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const server = connect(Number(target.port), target.hostname);
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // Either side gone: the other goes too, as a dropped connection does.
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        server.destroy();
      });
    }
    const fromClient = messageReader(false);
    const fromServer = messageReader(true);
    // Whether the transaction on this connection ran the armed marker; then whether its COMMIT was sent.
    let marked = false;
    let committing: { committed: boolean } | undefined;
    client.on('data', (chunk: Buffer) => {
      for (const message of fromClient(chunk)) {
        const sql = sqlOf(message)?.trim();
        if (armed && sql?.includes(armed.marker)) marked = true;
        if (message.type === 'Q' && (sql === 'COMMIT' || sql === 'ROLLBACK')) {
          if (marked && armed && sql === 'COMMIT') committing = { committed: false };
          marked = false;
        }
        server.write(message.bytes);
      }
    });
    server.on('data', (chunk: Buffer) => {
      if (committing === undefined) {
        client.write(chunk);
        return;
      }
      // The answer to COMMIT: held back; once PostgreSQL is ready again, the connection drops.
      for (const message of fromServer(chunk)) {
        if (message.type === 'C' && message.body.toString('utf8', 0, 6) === 'COMMIT')
          committing.committed = true;
        if (message.type !== 'Z') continue;
        const done = armed;
        armed = undefined;
        client.destroy();
        server.destroy();
        if (committing.committed) done?.lost();
        else done?.failed(new Error('PostgreSQL did not commit the armed transaction.'));
      }
    });
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const { port } = proxy.address() as { port: number };
  const through = new URL(url);
  through.host = `127.0.0.1:${port}`;
  return {
    url: through.toString(),
    loseCommitReply(marker) {
      if (armed) throw new Error('The proxy is already armed.');
      return new Promise((lost, failed) => {
        armed = { marker, lost, failed };
      });
    },
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    mend() {
      cut = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      proxy.close();
      await once(proxy, 'close');
    },
  };
}
