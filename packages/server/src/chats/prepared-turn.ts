import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ChatFile, ChatMessage } from '@toolbus/spec';
import type { Chat, Persona } from '@toolbus/storage';
import { ownsRow, type Principal } from '../http/principal.ts';
import { ServerError } from '../http/server-error.ts';
import type { TurnRequest } from '../scale-out/turn-queue.ts';
import type { ChatServiceDependencies } from './chat-service-dependencies.ts';

/** What a turn runs with, resolved from a request before anything is recorded. */
export interface PreparedTurn {
  readonly persona: Persona;
  readonly files: readonly ChatFile[];
  readonly modelName: string;
  readonly model: LanguageModelV4;
  readonly userMessage: ChatMessage;
}

/** Checks a request and resolves what its turn runs with (persona, files, model), before anything is recorded. */
export async function prepareTurn(
  deps: ChatServiceDependencies,
  request: { readonly principal: Principal; readonly chat: Chat; readonly input: TurnRequest },
): Promise<PreparedTurn> {
  const { principal, chat, input } = request;
  const persona = await findPersona(deps, input.personaId ?? chat.personaId ?? undefined, 'body.personaId');
  const files = await ownedFiles(deps, principal, input.fileIds ?? []);
  const { modelName, model } = await chooseModel(deps, input.model);
  const userMessage: ChatMessage = {
    role: 'user',
    content: input.content,
    ...(files.length > 0 ? { files } : {}),
  };
  return { persona, files, modelName, model, userMessage };
}

/** The requested model, else an admin's `model` setting when the server allows it, else the default. */
async function chooseModel(
  deps: ChatServiceDependencies,
  requested: string | undefined,
): Promise<{ modelName: string; model: LanguageModelV4 }> {
  const configured = await deps.storage.settings.get('model');
  const fallback =
    typeof configured === 'string' && deps.allowedModels.has(configured) ? configured : deps.defaultModel;
  const modelName = requested ?? fallback;
  if (!deps.allowedModels.has(modelName)) {
    throw new ServerError({
      code: 'invalid_request',
      field: 'body.model',
      message: `body.model: "${modelName}" is not a model this server allows (${[...deps.allowedModels].join(', ')}).`,
    });
  }
  try {
    return { modelName, model: deps.resolveModel(modelName) };
  } catch (error) {
    throw new ServerError({
      code: 'invalid_request',
      field: 'body.model',
      message: `body.model: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
}

/** A persona by id, or the default one; `invalid_request` naming `field` when there is none. */
export async function findPersona(
  deps: ChatServiceDependencies,
  id: string | undefined,
  field: string,
): Promise<Persona> {
  if (id === undefined) {
    const fallback = await deps.defaultPersona();
    if (!fallback) {
      throw new ServerError({
        code: 'invalid_request',
        field,
        message: `${field}: no persona exists yet; an admin creates one first.`,
      });
    }
    return fallback;
  }
  const persona = await deps.storage.personas.get(id);
  if (!persona)
    throw new ServerError({
      code: 'invalid_request',
      field,
      message: `${field}: no persona ${JSON.stringify(id)}.`,
    });
  return persona;
}

/** The files a request attaches; each must be the caller's (`invalid_request` naming the one that is not). */
async function ownedFiles(
  deps: ChatServiceDependencies,
  principal: Principal,
  ids: readonly string[],
): Promise<ChatFile[]> {
  const files: ChatFile[] = [];
  for (const [index, id] of ids.entries()) {
    const file = await deps.storage.files.get(id);
    if (!file || !ownsRow(principal, file)) {
      throw new ServerError({
        code: 'invalid_request',
        field: `body.fileIds.${index}`,
        message: `body.fileIds.${index}: no file ${JSON.stringify(id)} of yours to attach to this chat (upload it with POST /v1/files).`,
      });
    }
    files.push({ id: file.id, name: file.name, mediaType: file.mediaType, sizeBytes: file.sizeBytes });
  }
  return files;
}
