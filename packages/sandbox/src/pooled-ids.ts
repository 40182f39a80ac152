import { CodeInterpreterError } from './code-interpreter-error.ts';

/** A pool id taken apart: which server issued it, and the server's own id. */
export interface PooledId {
  readonly pooledId: string;
  readonly serverIndex: number;
  readonly serverId: string;
}

// Copies are remembered for reuse; beyond this many files the oldest are forgotten (the servers' TTL removes them).
const maxRememberedFiles = 10_000;
const pooledIdPattern = /^s(\d{1,4})~(.+)$/;

/**
 * The ids a {@link CodeInterpreterPool} hands out: `s<server index>~<server's id>`, so each later call finds the
 * server that holds the file or session without a lookup table; and the copies of files the pool made on other
 * servers (so a file is copied to a server once).
 */
export class PooledIds {
  readonly #serverCount: number;
  readonly #copies = new Map<string, Map<number, string>>();

  constructor(serverCount: number) {
    this.#serverCount = serverCount;
  }

  issue(serverIndex: number, serverId: string): string {
    return `s${serverIndex}~${serverId}`;
  }

  /** Takes a pool id apart; an id the pool did not issue is the same 404 a server gives for an unknown id. */
  parse(pooledId: string, kind: 'file' | 'session'): PooledId {
    const match = pooledIdPattern.exec(pooledId);
    const serverIndex = Number(match?.[1]);
    const serverId = match?.[2];
    if (serverId === undefined || !(serverIndex < this.#serverCount)) throw this.unknown(pooledId, kind);
    return { pooledId, serverIndex, serverId };
  }

  /** The id under which server `serverIndex` holds the file, when it holds it (the original or a copy). */
  localId(id: PooledId, serverIndex: number): string | undefined {
    if (id.serverIndex === serverIndex) return id.serverId;
    return this.#copies.get(id.pooledId)?.get(serverIndex);
  }

  rememberCopy(pooledId: string, serverIndex: number, serverId: string): void {
    let copies = this.#copies.get(pooledId);
    if (copies === undefined) {
      if (this.#copies.size >= maxRememberedFiles) {
        const oldest = this.#copies.keys().next().value;
        if (oldest !== undefined) this.#copies.delete(oldest);
      }
      copies = new Map();
      this.#copies.set(pooledId, copies);
    }
    copies.set(serverIndex, serverId);
  }

  /** The copies of a file (server index → id there), forgotten from now on. */
  forgetCopies(pooledId: string): ReadonlyMap<number, string> {
    const copies = this.#copies.get(pooledId) ?? new Map<number, string>();
    this.#copies.delete(pooledId);
    return copies;
  }

  unknown(pooledId: string, kind: 'file' | 'session'): CodeInterpreterError {
    return new CodeInterpreterError({
      code: 'code_interpreter_http',
      status: 404,
      serviceCode: kind === 'file' ? 'file_not_found' : 'session_not_found',
      message: `the interpreter pool issued no ${kind} id ${JSON.stringify(pooledId.slice(0, 100))}`,
    });
  }
}
