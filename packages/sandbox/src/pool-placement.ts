import type { ExecuteResponse, WorkspaceFileInput } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { CodeInterpreterCallOptions } from './code-interpreter.ts';
import type { CodeInterpreterClient } from './code-interpreter-client.ts';
import { CodeInterpreterError } from './code-interpreter-error.ts';
import { noServerAnswersError, serverLostError } from './pool-server-errors.ts';
import type { PooledIds } from './pooled-ids.ts';

/** One server of the pool, with its client and its state. */
export interface PoolMember {
  readonly index: number;
  readonly client: CodeInterpreterClient;
  healthy: boolean;
  inFlight: number;
}

/** Short name inside this file. */
type Member = PoolMember;

/** A server chosen for a request (already counted in flight) and the request's files as that server names them. */
export interface Placement {
  readonly member: Member;
  readonly files: WorkspaceFileInput[];
}

/**
 * Which server of a {@link CodeInterpreterPool} a request goes to, and what a failure there means: placement by
 * files held and load, copying missing files, the retry rule, and reporting what lived on a lost server as lost
 * (the pool's class comment states the rules).
 */
export class PoolPlacement {
  readonly members: readonly Member[];
  readonly ids: PooledIds;
  #cursor = 0;

  constructor(members: readonly Member[], ids: PooledIds) {
    this.members = members;
    this.ids = ids;
  }

  /** A connection failure while no server is up any more becomes the pool's "no service answers" error. */
  explained(error: unknown): unknown {
    const unreachable =
      CodeInterpreterError.isInstance(error) && error.code === 'code_interpreter_unreachable';
    if (!unreachable || this.members.some((member) => member.healthy)) return error;
    return noServerAnswersError(this.members.length, error);
  }

  /** The retry rule of the pool's class comment. Marks the server down when its connection failed. */
  shouldRetry(member: Member, error: unknown): boolean {
    if (!CodeInterpreterError.isInstance(error)) return false;
    if (error.code === 'code_interpreter_unreachable') {
      if (isTimeout(error.cause)) return false;
      member.healthy = false;
      return true;
    }
    if (error.status === 503 && error.serviceCode === 'sandbox_unavailable') {
      member.healthy = false;
      return true;
    }
    return error.status === 503 && error.serviceCode === 'queue_full';
  }

  /**
   * Chooses a server (counted in flight at once, so concurrent calls spread) and makes sure it has the request's
   * files, copying those it lacks from the servers that have them.
   */
  async place(
    files: readonly WorkspaceFileInput[],
    exclude: ReadonlySet<number>,
    options: CodeInterpreterCallOptions,
  ): Promise<Placement> {
    const pooled = files.map((file) => this.ids.parse(file.file_id, 'file'));
    const member = this.#pick(exclude, (candidate) =>
      pooled.reduce((held, id) => held + (this.ids.localId(id, candidate.index) === undefined ? 0 : 1), 0),
    );
    try {
      const mapped: WorkspaceFileInput[] = [];
      for (const [position, file] of files.entries()) {
        const id = pooled[position];
        if (id === undefined) continue;
        let local = this.ids.localId(id, member.index);
        if (local === undefined) local = await this.#copy(id.pooledId, member, options);
        mapped.push({ path: file.path, file_id: local });
      }
      return { member, files: mapped };
    } catch (error) {
      this.release(member);
      throw error;
    }
  }

  /** Copies a file from its own server to `target` and remembers the copy. */
  async #copy(pooledId: string, target: Member, options: CodeInterpreterCallOptions): Promise<string> {
    const { serverIndex, serverId } = this.ids.parse(pooledId, 'file');
    const source = this.members[serverIndex] as Member;
    const content = await this.onHolder(source, 'file', pooledId, () =>
      source.client.downloadFile(serverId, options),
    );
    const uploaded = await target.client.uploadFile({
      filename: 'copy',
      content,
      // The copy is the same user's file on another server: it counts against that user's share there.
      ...omitUndefined({ signal: options.signal, userId: options.userId }),
    });
    this.ids.rememberCopy(pooledId, target.index, uploaded.file_id);
    return uploaded.file_id;
  }

  /** Healthy servers first (all, when none is); most files held, then fewest in flight, ties in rotation. */
  #pick(exclude: ReadonlySet<number>, filesHeld: (member: Member) => number): Member {
    const allowed = this.members.filter((member) => !exclude.has(member.index));
    const healthy = allowed.filter((member) => member.healthy);
    const candidates = healthy.length > 0 ? healthy : allowed;
    if (candidates.length === 0) {
      throw new CodeInterpreterError({
        code: 'code_interpreter_unreachable',
        message: 'no interpreter server of the pool is left to try',
      });
    }
    const count = this.members.length;
    let best: { member: Member; held: number } | undefined;
    for (let offset = 0; offset < count; offset += 1) {
      const member = candidates.find((candidate) => candidate.index === (this.#cursor + offset) % count);
      if (member === undefined) continue;
      const held = filesHeld(member);
      if (
        best === undefined ||
        held > best.held ||
        (held === best.held && member.inFlight < best.member.inFlight)
      ) {
        best = { member, held };
      }
    }
    const chosen = (best as { member: Member }).member;
    this.#cursor = (chosen.index + 1) % count;
    chosen.inFlight += 1;
    return chosen;
  }

  /** A request on `member` ended. */
  release(member: Member): void {
    member.inFlight -= 1;
  }

  async #tracked<T>(member: Member, run: () => Promise<T>): Promise<T> {
    member.inFlight += 1;
    try {
      return await run();
    } finally {
      this.release(member);
    }
  }

  /** A call to the one server that holds a file or session: a connection failure there means it is lost. */
  async onHolder<T>(
    member: Member,
    kind: 'file' | 'session',
    pooledId: string,
    run: () => Promise<T>,
  ): Promise<T> {
    try {
      return await this.#tracked(member, run);
    } catch (error) {
      throw this.lostIfDown(member, kind, pooledId, error);
    }
  }

  /** {@link onHolder} for the server a pooled id names: `run` gets that server and its own id of the resource. */
  onHolderOf<T>(
    pooledId: string,
    kind: 'file' | 'session',
    run: (member: Member, serverId: string) => Promise<T>,
  ): Promise<T> {
    const member = this.memberOf(pooledId, kind);
    const { serverId } = this.ids.parse(pooledId, kind);
    return this.onHolder(member, kind, pooledId, () => run(member, serverId));
  }

  /** A refused or broken connection (not a timeout) marks the server down and reports what lived there as lost. */
  lostIfDown(member: Member, kind: 'file' | 'session', pooledId: string, error: unknown): unknown {
    if (!CodeInterpreterError.isInstance(error) || error.code !== 'code_interpreter_unreachable')
      return error;
    if (isTimeout(error.cause)) return error;
    member.healthy = false;
    return serverLostError({ kind, pooledId, cause: error });
  }

  /** The server a pooled file or session id names. */
  memberOf(pooledId: string, kind: 'file' | 'session'): Member {
    const { serverIndex } = this.ids.parse(pooledId, kind);
    const member = this.members[serverIndex];
    if (member === undefined) throw this.ids.unknown(pooledId, kind);
    return member;
  }

  /** The run's output files are on the server that ran it: their ids say so. */
  poolResult(member: Member, result: ExecuteResponse): ExecuteResponse {
    return {
      ...result,
      files: result.files.map((file) => ({ ...file, file_id: this.ids.issue(member.index, file.file_id) })),
    };
  }
}

/** The client's own deadline (or an abort) ended the call: the server may be alive and still running it. */
function isTimeout(cause: unknown): boolean {
  return cause instanceof DOMException && (cause.name === 'TimeoutError' || cause.name === 'AbortError');
}
