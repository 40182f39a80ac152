import type { LanguageModelV4 } from '@ai-sdk/provider';
import { constructTools, setAsideTools } from '@toolbus/assembly';
import type { ChatFile, Tool } from '@toolbus/spec';
import { omitUndefined } from '@toolbus/spec';
import type { Persona } from '@toolbus/storage';
import type { TurnApprovals } from '../approvals/approval-hub.ts';
import type { Principal } from '../http/principal.ts';
import type { BuiltInToolContext } from '../server-options.ts';
import type { ChatServiceDependencies } from './chat-service-dependencies.ts';

/** What assembling a persona's tools may take beyond the caller and the persona. */
export interface AssembleOptions {
  readonly model?: LanguageModelV4;
  readonly files?: readonly ChatFile[];
  /** The turn's approvals; without them (the MCP endpoint) an ASK action is refused at once. */
  readonly approvals?: TurnApprovals;
}

/** A persona's tools, and how to close what assembling them opened. */
export interface AssembledTools {
  readonly tools: readonly Tool[];
  /** Tools left out because no provider accepts their schema, by name and why (the turn's `tool-mode` note). */
  readonly setAside: readonly { readonly name: string; readonly reason: string }[];
  readonly cleanup: () => Promise<void>;
}

/**
 * Assembles a persona's tools for the caller (built-ins, OpenAPI, MCP, with the user's memory and search
 * settings); `cleanup` closes what the assembly opened. Used by turns and by the MCP endpoint.
 */
export async function assemblePersonaTools(
  deps: ChatServiceDependencies,
  request: { readonly principal: Principal; readonly persona: Persona; readonly options: AssembleOptions },
): Promise<AssembledTools> {
  const { principal, persona, options } = request;
  const cleanups: (() => Promise<void>)[] = [];
  let model = options.model;
  const context: BuiltInToolContext = {
    user: principal.user,
    organizationId: principal.organization.id,
    ...omitUndefined({
      documentIndex: deps.documentIndex?.forOrganization({
        organizationId: principal.organization.id,
        uploadedBy: principal.user.id,
      }),
    }),
    // Resolved only when a built-in needs a model (the memory tool): the MCP endpoint runs no model itself.
    get model() {
      model ??= deps.resolveModel(deps.defaultModel);
      return model;
    },
    onClose: (cleanup) => cleanups.push(cleanup),
    ...omitUndefined({ approvals: options.approvals }),
  };
  const assembly = await constructTools({
    persona,
    user: principal.user,
    storage: deps.storage,
    builtInFactories: deps.builtInToolFactories(context),
    availabilityContext: { userId: principal.user.id, files: options.files ?? [] },
    fetch: deps.fetch,
    ...omitUndefined({ cache: deps.assemblyCache, logger: deps.logger }),
    ...(deps.logger ? { openApi: { logger: deps.logger } } : {}),
    ...(deps.mcpOAuthRedirectUrl || deps.logger
      ? {
          mcp: omitUndefined({
            oauthRedirectUrl: deps.mcpOAuthRedirectUrl,
            oauthRefreshLock: deps.mcpOAuthRefreshLock,
            logger: deps.logger,
          }),
        }
      : {}),
  });
  return {
    tools: assembly.tools,
    setAside: setAsideTools(assembly.skipped),
    cleanup: async () => {
      await assembly.close();
      for (const run of cleanups) await run().catch(() => undefined);
    },
  };
}
