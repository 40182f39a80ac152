import { type Persona, personaNameKey, type Storage } from '@toolbus/storage';

/**
 * The persona of a chat that names none: the configured one when `personaId` is given, else the persona named
 * `default`, else the first. Names are unique ignoring case (the storage's rule), so at most one is "default".
 */
export function defaultPersonaOf(storage: Storage, personaId?: string): () => Promise<Persona | undefined> {
  return async () => {
    if (personaId) return storage.personas.get(personaId);
    const personas = await storage.personas.list();
    return personas.find((persona) => personaNameKey(persona.name) === 'default') ?? personas[0];
  };
}
