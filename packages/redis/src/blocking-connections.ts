import type { Redis } from 'ioredis';

/**
 * Connections for blocking reads (`XREAD BLOCK` holds its connection until it answers): one per waiting reader,
 * reused afterwards, so many followers never queue behind each other on one socket.
 */
export class BlockingConnections {
  readonly #base: Redis;
  readonly #idle: Redis[] = [];
  readonly #all = new Set<Redis>();
  readonly #maxIdle: number;
  #closed = false;

  constructor(base: Redis, options: { readonly maxIdle?: number } = {}) {
    this.#base = base;
    this.#maxIdle = options.maxIdle ?? 64;
  }

  /** Runs `use` on a connection of its own. */
  async with<T>(use: (connection: Redis) => Promise<T>): Promise<T> {
    const connection = this.#idle.pop() ?? this.#open();
    try {
      return await use(connection);
    } finally {
      if (!this.#closed && this.#idle.length < this.#maxIdle && connection.status === 'ready') {
        this.#idle.push(connection);
      } else {
        this.#all.delete(connection);
        connection.disconnect();
      }
    }
  }

  /** Closes every connection (a read still blocked fails). */
  close(): void {
    this.#closed = true;
    for (const connection of this.#all) connection.disconnect();
    this.#all.clear();
    this.#idle.length = 0;
  }

  #open(): Redis {
    const connection = this.#base.duplicate();
    // Reported where the base connection's errors are (a duplicate has no listener: Node would print the error).
    connection.on('error', (error) => this.#base.emit('error', error));
    this.#all.add(connection);
    return connection;
  }
}
