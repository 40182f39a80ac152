import type { OpenApiAuth } from '@toolbus/spec';
import type { Creating, StoredRow } from './sql/camel-columns.ts';

/** A persona (an assistant, in chat-product terms): a named set of tools. */
export type Persona = Omit<StoredRow<'personas'>, 'nameKey'>;

/** What creating a persona takes; the description defaults to none, search usage to `auto`. */
export type NewPersona = Creating<Persona, 'name', 'description' | 'searchUsage'>;

/** Where the tools of one persona tool row come from: exactly one of a built-in, an OpenAPI document, an MCP tool. */
export type ToolRowSource =
  | { readonly kind: 'built-in'; readonly builtInId: string }
  | {
      readonly kind: 'openapi';
      /** A label for people (the document title when none is given). */
      readonly name: string;
      /** The OpenAPI / Swagger document as parsed JSON. */
      readonly document: unknown;
      /** How the backend authenticates calls of these tools (stored encrypted, never shown to the model). */
      readonly auth?: OpenApiAuth;
    }
  | { readonly kind: 'mcp'; readonly serverId: string; readonly toolName: string };

/** One row of a persona's tool list; assembly turns it into zero or more tools keyed by `id`. */
export type PersonaToolRow = Pick<
  StoredRow<'persona_tools'>,
  'id' | 'personaId' | 'position' | 'createdAt'
> & {
  readonly source: ToolRowSource;
};
