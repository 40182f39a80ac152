import {
  type InterpreterServer,
  type InterpreterServerOptions,
  startInterpreterServer,
} from '@toolbus/interpreter';
import { type CodeInterpreter, CodeInterpreterClient } from '@toolbus/sandbox';
import { omitUndefined, ToolbusError } from '@toolbus/spec';
import type { SandboxEgress } from '../egress/sandbox-egress.ts';
import { lazyCodeInterpreter } from './lazy-code-interpreter.ts';

/**
 * Materialised skills: each in `<root>/<name>/`, mounted read-only at /workspace/managed/skills/<name>/ in the runs
 * that name it. No root means no skills.
 */
export interface SandboxSkills {
  readonly names: readonly string[];
  readonly root: string | undefined;
}

/** Options of {@link createInProcessSandbox}. */
export interface InProcessSandboxOptions {
  /**
   * The skills of a turn that brings none ({@link InProcessSandboxTurn.skills}), and the ones {@link
   * InProcessSandbox.warm} starts the service with.
   */
  readonly skills?: SandboxSkills;
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
  /**
   * The skills this turn's runs mount (`toolbus serve` takes the ones stored when the turn starts); default the
   * sandbox's own. The caller keeps their folder until the turn ends.
   */
  readonly skills?: SandboxSkills;
}

/**
 * The code sandbox a process starts for itself when no sandbox service is configured (`toolbus chat`, `toolbus
 * serve`). One service per process and set of skills, started at the first question that needs it (a turn's first
 * run, or the first availability check of the process), never per turn: its start-up probe spawns several processes
 * (seccomp compile, quota mount, a probe run). A probe that failed is remembered with its reason for the life of the
 * process, so run_python is not offered and any run is refused at once with that reason, instead of probing again.
 *
 * A service's skills folder is fixed when it starts (the service binds `<root>/<name>` for a run that names a skill),
 * and a turn keeps the skills it started with. So when `toolbus serve`'s skills change, the first run of a turn with
 * the new set starts a service on the new folder, while turns that started before run on the old one until they
 * end; a service no turn uses any more is closed, unless it is the one of the newest set (kept warm for the next
 * turns). Skills change rarely (an admin's upload), so this costs one service start per change.
 */
export interface InProcessSandbox {
  /** Starts the service now (`toolbus serve` does, so the first turns do not wait for it). */
  warm(): void;
  /** Whether code can run here, as the start-up probe found (starts the service the first time). */
  isAvailable(): Promise<boolean>;
  /** The interpreter one turn's tools use: nothing starts until its first run. */
  forTurn(turn: InProcessSandboxTurn): CodeInterpreter;
  close(): Promise<void>;
}

/** The shared service of one skills folder, and how many turns may still run on it. */
interface SkillsService {
  readonly skills: SandboxSkills | undefined;
  turns: number;
  started?: Promise<{ server: InterpreterServer; client: CodeInterpreter }>;
}

/** Creates the {@link InProcessSandbox} of this process (started lazily). */
export function createInProcessSandbox(options: InProcessSandboxOptions = {}): InProcessSandbox {
  const start = options.start ?? startInterpreterServer;
  const serverOptions = (
    skills: SandboxSkills | undefined,
    egress?: SandboxEgress,
  ): InterpreterServerOptions => ({
    port: 0,
    ...omitUndefined({ skillsRoot: skills?.root, egress: egress?.provider }),
  });
  // By skills folder ('' for none).
  const services = new Map<string, SkillsService>();
  let newest = options.skills?.root ?? '';
  // Set once a service's probe found that code cannot run here: the machine's answer, not asked again.
  let refusal: { readonly reason: string | undefined } | undefined;
  let closed = false;
  const serviceOf = (skills: SandboxSkills | undefined): SkillsService => {
    const key = skills?.root ?? '';
    let service = services.get(key);
    if (service === undefined) {
      service = { skills, turns: 0 };
      services.set(key, service);
    }
    return service;
  };
  const startedOf = (service: SkillsService) => {
    service.started ??= start(serverOptions(service.skills)).then((server) => {
      if (!server.isolation.sandbox) refusal ??= { reason: server.isolation.reason };
      return { server, client: new CodeInterpreterClient({ baseUrl: server.url }) };
    });
    return service.started;
  };
  // The shared service's client for these skills, or the remembered reason code cannot run.
  const usable = async (skills: SandboxSkills | undefined): Promise<CodeInterpreter> => {
    if (refusal !== undefined) throw sandboxUnavailable(refusal.reason);
    const { server, client } = await startedOf(serviceOf(skills));
    if (!server.isolation.sandbox) throw sandboxUnavailable(server.isolation.reason);
    return client;
  };
  // Isolation is the machine's: any service started already answers, so a turn that runs no code starts nothing.
  const isAvailable = async (skills: SandboxSkills | undefined): Promise<boolean> => {
    if (refusal !== undefined) return false;
    if (services.get(skills?.root ?? '')?.started === undefined) {
      const other = [...services.values()].find((service) => service.started !== undefined)?.started;
      const found = await other?.then(
        ({ server }) => server.isolation.sandbox,
        () => undefined,
      );
      if (found !== undefined) return found;
    }
    return (await startedOf(serviceOf(skills))).server.isolation.sandbox;
  };
  // Closes the services no turn uses any more, but the newest set's.
  const closeIdle = async () => {
    for (const [key, service] of services) {
      if (service.turns > 0 || key === newest) continue;
      services.delete(key);
      await (await service.started?.catch(() => undefined))?.server.close();
    }
  };
  return {
    warm() {
      startedOf(serviceOf(options.skills)).catch(() => undefined);
    },
    isAvailable: () => isAvailable(options.skills),
    forTurn(turn) {
      const skills = turn.skills ?? options.skills;
      const service = serviceOf(skills);
      service.turns += 1;
      newest = skills?.root ?? '';
      turn.onClose(async () => {
        service.turns -= 1;
        await closeIdle();
      });
      closeIdle().catch(() => undefined);
      let runs: Promise<CodeInterpreter> | undefined;
      const ownService = async (): Promise<CodeInterpreter> => {
        const client = await usable(skills);
        const egress = await turn.egress?.();
        if (egress === undefined) return client;
        turn.onClose(() => egress.close());
        const server = await start(serverOptions(skills, egress));
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
        probe: () => usable(skills),
        isAvailable: () => isAvailable(skills),
      });
    },
    async close() {
      closed = true;
      const started = [...services.values()];
      services.clear();
      for (const service of started) await (await service.started?.catch(() => undefined))?.server.close();
    },
  };
}

function sandboxUnavailable(reason: string | undefined): ToolbusError {
  return new ToolbusError({
    code: 'sandbox_unavailable',
    message: `Code cannot run on this server: ${reason ?? 'the sandbox could not be created'}.`,
  });
}
