import { randomUUID } from 'node:crypto';
import { omitUndefined } from '@toolbus/spec';
import { HttpError } from './http-error.ts';
import type { OutputStreamName, SandboxRunResult } from './run-in-sandbox.ts';
import type { SandboxExecutor, SandboxWorkspace } from './sandbox-executor.ts';
import type { SkillMount } from './skills-directory.ts';
import type { StagedFile } from './workspace-files.ts';

interface Session {
  readonly id: string;
  readonly workspace: SandboxWorkspace;
  /** Mounted read-only for every command. */
  readonly skills: readonly SkillMount[];
  readonly expiresAt: number;
  readonly timer: NodeJS.Timeout;
  /** Commands of one session run one after another: they share a filesystem. */
  tail: Promise<unknown>;
}

/**
 * Long-lived workspaces for the coding agent. Files persist between a session's commands; processes do not (each
 * command is its own sandbox). A session is deleted at its TTL even if nobody asks.
 */
export class SessionRegistry {
  readonly #executor: SandboxExecutor;
  readonly #maxSessions: number;
  readonly #sessions = new Map<string, Session>();

  constructor(options: { executor: SandboxExecutor; maxSessions: number }) {
    this.#executor = options.executor;
    this.#maxSessions = options.maxSessions;
  }

  async create(options: {
    ttlSeconds: number;
    files: readonly StagedFile[];
    skills?: readonly SkillMount[];
  }): Promise<{ id: string; expiresAt: number }> {
    if (this.#sessions.size >= this.#maxSessions) {
      throw new HttpError({
        status: 503,
        code: 'too_many_sessions',
        message: `at most ${this.#maxSessions} sessions`,
      });
    }
    const workspace = await this.#executor.createWorkspace(options.files);
    const id = randomUUID();
    const expiresAt = Date.now() + options.ttlSeconds * 1000;
    const timer = setTimeout(() => void this.delete(id), options.ttlSeconds * 1000);
    timer.unref();
    this.#sessions.set(id, {
      id,
      workspace,
      skills: options.skills ?? [],
      expiresAt,
      timer,
      tail: Promise.resolve(),
    });
    return { id, expiresAt };
  }

  /** Runs `bash -c command` in the session's workspace, after the session's earlier commands finish. */
  run(options: {
    id: string;
    command: string;
    timeoutMs: number;
    signal?: AbortSignal;
    /** Receives output as the command writes it (the streaming endpoint). */
    onOutput?: (stream: OutputStreamName, data: string) => void;
  }): Promise<SandboxRunResult> {
    const session = this.#require(options.id);
    const result = session.tail.then(() => {
      if (!this.#sessions.has(session.id)) {
        throw new HttpError({ status: 404, code: 'session_not_found', message: 'the session ended' });
      }
      return this.#executor.run({
        workspace: session.workspace,
        command: ['/usr/bin/bash', '-c', options.command],
        skills: session.skills,
        timeoutMs: options.timeoutMs,
        ...omitUndefined({ signal: options.signal, onOutput: options.onOutput }),
      });
    });
    session.tail = result.catch(() => {});
    return result;
  }

  async delete(id: string): Promise<boolean> {
    const session = this.#sessions.get(id);
    if (!session) return false;
    this.#sessions.delete(id);
    clearTimeout(session.timer);
    // Wait for a running command so its workspace is not pulled away mid-run.
    await session.tail;
    await this.#executor.removeWorkspace(session.workspace);
    return true;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.delete(id)));
  }

  #require(id: string): Session {
    const session = this.#sessions.get(id);
    if (!session) throw new HttpError({ status: 404, code: 'session_not_found', message: 'no such session' });
    return session;
  }
}
