// constructTools as the tests call it: the tests' built-in factories and the real fetch (every server they reach is
// on loopback), with each test's own persona, user, storage and options.
import { openStorage, type Persona, type Storage, type User } from '@toolbus/storage';
import { type ConstructToolsOptions, constructTools, type ToolAssembly } from '../construct-tools.ts';
import { builtInFactories } from './test-tools.ts';

/** {@link constructTools} with the test defaults; `options` may still override the factories or the fetch. */
export function constructTestTools(
  options: Omit<ConstructToolsOptions, 'builtInFactories' | 'fetch'> &
    Partial<Pick<ConstructToolsOptions, 'builtInFactories' | 'fetch'>>,
): Promise<ToolAssembly> {
  return constructTools({ builtInFactories: builtInFactories(), fetch, ...options });
}

/** What each assembly test starts from: a fresh in-memory storage with one persona and one user. */
export async function openAssemblyStorage(
  personaName: string,
  email: string,
): Promise<{ storage: Storage; persona: Persona; user: User }> {
  const storage = await openStorage({ path: ':memory:', environment: {} });
  const persona = await storage.personas.create({ name: personaName });
  const user = await storage.users.create({ email });
  return { storage, persona, user };
}
