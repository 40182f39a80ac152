// What `toolbus serve`'s turns get besides the persona's own tools: the built-in tools over the CLI's workspace, and
// the skills stored when each turn starts. Apart from serve-command.ts, which starts the server around them.
import { join } from 'node:path';
import type { GuardedFetch } from '@toolbus/core/node';
import {
  builtInToolFactories,
  type ConfiguredInterpreter,
  type configuredInterpreter,
  type createJsonLogger,
  type InProcessSandbox,
  type ServerOptions,
} from '@toolbus/server';
import { omitUndefined } from '@toolbus/spec';
import type { CliConfig } from './cli-config.ts';
import type { CliIo } from './cli-io.ts';
import { egressSecretKey } from './egress-secret-key.ts';
import { type LiveChatSkills, openLiveChatSkills } from './load-skills.ts';
import { openConfiguredSkillStores } from './open-configured-storage.ts';
import type { CliWorkspace } from './open-workspace.ts';

/**
 * The skill stores the admin API writes (as `toolbus skills` does from other processes, on the same files; with
 * PostgreSQL storage, in its database, as every replica does), and what turns mount at /workspace/managed/skills and
 * run_python's description lists: the skills stored when each turn starts. Only the in-process sandbox mounts
 * skills; a configured sandbox service gets none.
 */
export async function openServeSkills(
  config: CliConfig,
  io: CliIo,
  sandbox: ReturnType<typeof configuredInterpreter>,
  logger: ReturnType<typeof createJsonLogger>,
) {
  const { registry, blobStore, close } = await openConfiguredSkillStores(config, io.env, undefined, (line) =>
    io.stderr.write(line),
  );
  const stores = { registry, blobStore };
  let skills: LiveChatSkills | undefined;
  try {
    skills = sandbox === undefined ? await openLiveChatSkills({ ...stores, logger }) : undefined;
  } catch (error) {
    await close();
    throw error;
  }
  return {
    stores,
    skills,
    async close() {
      await skills?.close();
      await close();
    },
  };
}

/** How serve builds each turn's built-in tools: the config file's services, over the CLI's workspace. */
export function serveToolFactories(options: {
  readonly config: CliConfig;
  readonly io: CliIo;
  readonly workspace: CliWorkspace;
  readonly fetch: GuardedFetch;
  readonly skills: LiveChatSkills | undefined;
  readonly sandbox: ConfiguredInterpreter | undefined;
  readonly inProcessSandbox: InProcessSandbox | undefined;
}): NonNullable<ServerOptions['builtInToolFactories']> {
  const { config, io, workspace, fetch, skills, sandbox, inProcessSandbox } = options;
  return (context) =>
    builtInToolFactories({
      settings: config.file,
      egressCaDirectory: join(config.home, 'egress-ca'),
      egressSecretKey: () => egressSecretKey(config, io.env),
      // The turn's organisation's documents only.
      index:
        context.documentIndex ?? workspace.index.forOrganization({ organizationId: context.organizationId }),
      storage: workspace.storage,
      fetch,
      userId: context.user.id,
      organizationId: context.organizationId,
      env: io.env,
      model: context.model,
      onClose: context.onClose,
      // Asked for when the turn first builds run_python or coding_agent; held until the turn ends.
      ...(skills && {
        skills: async () => {
          const lease = await skills.acquire();
          context.onClose(() => lease.release());
          return lease;
        },
      }),
      ...omitUndefined({ interpreter: sandbox?.interpreter, inProcessSandbox }),
      // run_python gets network through the egress proxy when the user has connected apps; its ASK actions
      // become approval cards in the chat.
      ...omitUndefined({
        egressApprovals: context.approvals && {
          broker: context.approvals.broker,
          timeoutMs: context.approvals.timeoutMs,
          sessionId: context.approvals.sessionId,
        },
      }),
    });
}
