import type { AvailabilityContext, FetchFunction, Tool } from '@toolbus/spec';
import type { Persona, PersonaToolRow, Storage, User } from '@toolbus/storage';

/** What a built-in tool factory receives. */
export interface BuiltInToolFactoryContext {
  readonly builtInId: string;
  readonly persona: Persona;
  readonly user: User | undefined;
  readonly storage: Storage;
  readonly fetch: FetchFunction;
  readonly availabilityContext: AvailabilityContext;
  /** The persona tool row, or undefined for an injected tool (forced search, memory). */
  readonly row: PersonaToolRow | undefined;
}

/** Builds one built-in tool for one assembly. */
export type BuiltInToolFactory = (context: BuiltInToolFactoryContext) => Tool | Promise<Tool>;
