import { BUILT_IN_TOOLS } from '@toolbus/core';
import { ToolbusError } from '@toolbus/spec';
import { type Persona, personaNameKey, type Storage, type User } from '@toolbus/storage';
import type { DocumentSearchIndex } from '@toolbus/tools';
import type { CliConfig } from './cli-config.ts';
import { openConfiguredDocumentIndex, openConfiguredStorage } from './open-configured-storage.ts';

/** The local user and default persona the CLI works as, with the stores they live in. */
export interface CliWorkspace {
  readonly storage: Storage;
  readonly index: DocumentSearchIndex;
  readonly user: User;
  readonly persona: Persona;
  close(): Promise<void>;
}

/** The CLI's single local user. */
export const LOCAL_USER_EMAIL = 'local@toolbus.invalid';
/** The persona created on first run, with every built-in tool. */
export const DEFAULT_PERSONA_NAME = 'default';
/** The settings key that holds the name of the persona `toolbus persona use` chose. */
export const ACTIVE_PERSONA_SETTING = 'cli.activePersona';

/**
 * Opens the CLI's stores under the toolbus home (creating them on first run): storage with encrypted secrets (key
 * file created with mode 0600), the search index, the local user, and the default persona with every built-in
 * tool. `persona` selects another stored persona by name (default: the one `toolbus persona use` chose, else
 * `default`); an unknown name is an error listing the known ones.
 */
export async function openWorkspace(
  config: CliConfig,
  options: { readonly persona?: string | undefined } = {},
): Promise<CliWorkspace> {
  const storage = await openConfiguredStorage(config);
  try {
    let user =
      (await storage.users.get({ email: LOCAL_USER_EMAIL })) ??
      (await storage.users.create({ email: LOCAL_USER_EMAIL, name: 'You' }));
    // The config file decides whether the memory tool is on for the CLI's user.
    const memoryWanted = config.file.memory === 'on';
    if (user.settings.memoryToolEnabled !== memoryWanted) {
      user = await storage.users.update(user.id, { settings: { memoryToolEnabled: memoryWanted } });
    }
    const personas = await storage.personas.list();
    const active = await storage.settings.get(ACTIVE_PERSONA_SETTING);
    const wanted = options.persona ?? (typeof active === 'string' ? active : DEFAULT_PERSONA_NAME);
    let persona = personas.find((candidate) => personaNameKey(candidate.name) === personaNameKey(wanted));
    if (!persona && personaNameKey(wanted) !== DEFAULT_PERSONA_NAME) {
      throw new ToolbusError({
        code: 'persona_not_found',
        message: `No persona named "${wanted}". Known personas: ${personas.map((known) => known.name).join(', ') || 'none'} (toolbus persona create <name>).`,
      });
    }
    if (!persona) {
      persona = await storage.personas.create({
        name: DEFAULT_PERSONA_NAME,
        description: 'Every built-in tool',
      });
      for (const entry of BUILT_IN_TOOLS)
        await storage.personas.addToolRow(persona.id, { kind: 'built-in', builtInId: entry.id });
    }
    const index = await openConfiguredDocumentIndex(config);
    return {
      storage,
      index,
      user,
      persona,
      async close() {
        await index.close();
        await storage.close();
      },
    };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** Runs `use` with the workspace open and closes it after, whatever `use` does. */
export async function withWorkspace<T>(
  config: CliConfig,
  use: (workspace: CliWorkspace) => Promise<T>,
  options: { readonly persona?: string | undefined } = {},
): Promise<T> {
  const workspace = await openWorkspace(config, options);
  return use(workspace).finally(() => workspace.close());
}
