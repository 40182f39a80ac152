import {
  type InterpreterServer,
  type InterpreterServerOptions,
  startInterpreterServer,
} from '@toolbus/interpreter';
import { type CodeInterpreter, CodeInterpreterClient } from '@toolbus/sandbox';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import type { SandboxEgress } from '../egress/sandbox-egress.ts';
import { lazyCodeInterpreter } from './lazy-code-interpreter.ts';

/** Options of {@link createInProcessSandbox}. */
export interface InProcessSandboxOptions {
  /** Materialised skills, mounted read-only at /workspace/managed/skills in every run. */
  readonly skills?: { readonly names: readonly string[]; readonly root: string | undefined };
  /** How the service is started (default {@link startInterpreterServer} on a free loopback port). */
  readonly start?: (options: InterpreterServerOptions) => Promise<InterpreterServer>;
}

/** What one turn's sandboxed tools need from {@link InProcessSandbox.forTurn}. */
export interface InProcessSandboxTurn {
  /**
   * The turn's egress proxy, asked at the first run only: undefined (the user has no connected app) runs the code
   * on the process's service, without network; otherwise a service of the turn's own relays through it.
   */
  readonly egress?: () => Promise<SandboxEgress | undefined>;
  /** Registers what to close when the turn ends (its own service and proxy, when it started them). */
  readonly onClose: (cleanup: () => Promise<void>) => void;
}

/**
 * The code sandbox a process starts for itself when no sandbox service is configured (`toolbus chat`, `toolbus
 * serve`). One service per process, started at the first question that needs it (a turn's availability check or
 * first run), never per turn: its start-up probe spawns several processes (seccomp compile, quota mount, a probe
 * run). A probe that failed is remembered with its reason for the life of the process, so run_python is not
 * offered and any run is refused at once with that reason, instead of probing again.
 */
export interface InProcessSandbox {
  /** Skill names runs can read (empty without a skills root). */
  readonly skills: readonly string[];
  /** Starts the service now (`toolbus serve` does, so the first turns do not wait for it). */
  warm(): void;
  /** Whether code can run here, as the start-up probe found (starts the service the first time). */
  isAvailable(): Promise<boolean>;
  /** The interpreter one turn's tools use: nothing starts until its first run. */
  forTurn(turn: InProcessSandboxTurn): CodeInterpreter;
  close(): Promise<void>;
}

/** Creates the {@link InProcessSandbox} of this process (started lazily). */
export function createInProcessSandbox(options: InProcessSandboxOptions = {}): InProcessSandbox {
  const start = options.start ?? startInterpreterServer;
  const skillsRoot = options.skills?.root;
  const serverOptions = (egress?: SandboxEgress): InterpreterServerOptions => ({
    port: 0,
    ...omitUndefined({ skillsRoot, egress: egress?.provider }),
  });
  let shared: Promise<{ server: InterpreterServer; client: CodeInterpreter }> | undefined;
  let closed = false;
  const sharedService = () => {
    shared ??= start(serverOptions()).then((server) => ({
      server,
      client: new CodeInterpreterClient({ baseUrl: server.url }),
    }));
    return shared;
  };
  // The shared service's client, or the remembered reason it cannot run code.
  const usable = async (): Promise<CodeInterpreter> => {
    const { server, client } = await sharedService();
    if (!server.isolation.sandbox) throw sandboxUnavailable(server.isolation.reason);
    return client;
  };
  const isAvailable = async () => (await sharedService()).server.isolation.sandbox;
  return {
    skills: skillsRoot ? (options.skills?.names ?? []) : [],
    warm() {
      sharedService().catch(() => undefined);
    },
    isAvailable,
    forTurn(turn) {
      let runs: Promise<CodeInterpreter> | undefined;
      const ownService = async (): Promise<CodeInterpreter> => {
        const client = await usable();
        const egress = await turn.egress?.();
        if (egress === undefined) return client;
        turn.onClose(() => egress.close());
        const server = await start(serverOptions(egress));
        turn.onClose(() => server.close());
        if (!server.isolation.sandbox) throw sandboxUnavailable(server.isolation.reason);
        // The in-process service is on loopback, so it is reached with plain fetch.
        return new CodeInterpreterClient({ baseUrl: server.url });
      };
      return lazyCodeInterpreter({
        runs: () => {
          if (closed) return Promise.reject(sandboxUnavailable('the server is shutting down'));
          runs ??= ownService();
          return runs;
        },
        probe: usable,
        isAvailable,
      });
    },
    async close() {
      closed = true;
      const started = shared;
      shared = undefined;
      if (started !== undefined) await (await started.catch(() => undefined))?.server.close();
    },
  };
}

function sandboxUnavailable(reason: string | undefined): ToolbusError {
  return new ToolbusError({
    code: 'sandbox_unavailable',
    message: `Code cannot run on this server: ${reason ?? 'the sandbox could not be created'}.`,
  });
}
