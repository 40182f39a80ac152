import type { FetchFunction } from '@toolbus/spec';
import {
  exampleArguments,
  type Tool,
  ToolCallError,
  type ToolDefinition,
  ToolExecutionError,
} from '@toolbus/spec';
import { buildRequest } from './build-request.ts';
import type { OpenApiFileStore } from './file-store.ts';
import { httpErrorForModel } from './http-error-for-model.ts';
import { interpretResponse } from './interpret-response.ts';
import type { OpenApiOperation } from './list-operations.ts';
import type { OperationArguments } from './operation-arguments.ts';
import type { ResolvedCredential } from './resolve-auth.ts';
import { sendRequest } from './send-request.ts';
import { coerceParameterArguments, validateArguments } from './validate-arguments.ts';

/** Everything one operation's tool needs; built once per document by `createOpenApiTools`. */
export interface OperationToolOptions {
  readonly name: string;
  readonly description: string;
  readonly displayName: string;
  readonly operation: OpenApiOperation;
  readonly arguments: OperationArguments;
  /** Absolute base URL, or undefined when neither the document nor `baseUrl` gives one. */
  readonly serverUrl: string | undefined;
  readonly credentials: readonly ResolvedCredential[];
  readonly fetch: FetchFunction;
  readonly fileStore: OpenApiFileStore;
  readonly maxResponseBytes: number;
  readonly maxFileBytes: number;
  readonly timeoutMs?: number | undefined;
}

const readOnlyMethods = new Set(['get', 'head', 'options']);

/**
 * The tool for one operation. Running it validates the arguments against the schema the model saw (a
 * `ToolCallError` with a correct example call when they do not fit), builds and sends the request with the
 * call's abort signal, and turns the answer into a string for the model and a `custom-tool` rich response, also
 * streamed as a `custom-tool-delta` packet. Reads run in parallel; writes run one at a time.
 */
export function createOperationTool(options: OperationToolOptions): Tool {
  const { name, operation } = options;
  const schema = options.arguments.schema as Record<string, unknown>;
  const parameterProperties = new Set(options.arguments.bindings.map((binding) => binding.property));
  const secrets = options.credentials
    .flatMap((credential) => credential.secrets)
    .filter((secret) => secret.length > 0);
  const redact = (text: string): string => {
    let result = text;
    for (const secret of secrets) result = result.split(secret).join('[redacted]');
    return result;
  };
  const definition: ToolDefinition = {
    name,
    description: options.description,
    parameters: options.arguments.schema,
  };
  return {
    name,
    description: options.description,
    displayName: options.displayName,
    streamsArgumentDeltas: false,
    concurrency: readOnlyMethods.has(operation.method) ? 'parallel' : 'serial',
    timeoutMs: options.timeoutMs,
    definition: () => definition,
    isAvailable: () => true,
    emitStart(_placement, emitter, call) {
      emitter.emit({
        type: 'tool-start',
        toolCallId: call.id,
        toolName: name,
        displayName: options.displayName,
        arguments: call.arguments,
      });
    },
    async run(call, context) {
      const args = coerceParameterArguments(schema, call.arguments ?? {}, parameterProperties);
      const problems = validateArguments(schema, args);
      if (problems.length > 0) {
        const list = problems
          .map((problem) => `- ${problem.path || '(arguments)'}: ${problem.message}`)
          .join('\n');
        const example = JSON.stringify({ name, arguments: exampleArguments(schema) });
        throw new ToolCallError({
          code: 'invalid_arguments',
          message: `Invalid arguments for "${name}":\n${list}`,
          modelMessage: `The arguments for "${name}" are invalid:\n${list}\nCall it like this: ${example}`,
        });
      }
      if (options.serverUrl === undefined) {
        throw new ToolExecutionError({
          code: 'openapi_no_server',
          message: `"${name}" has no server URL: the document gives none (or only a relative one) and no baseUrl was configured.`,
        });
      }
      const request = buildRequest({
        operation,
        serverUrl: options.serverUrl,
        bindings: options.arguments.bindings,
        bodyProperty: options.arguments.bodyProperty,
        args,
        credentials: options.credentials,
      });
      const response = await sendRequest({
        fetch: options.fetch,
        request,
        signal: context.signal,
        hasCredentials: options.credentials.length > 0,
      });
      if (response.status < 200 || response.status > 299) {
        throw await httpErrorForModel({
          response,
          toolName: name,
          method: request.method,
          displayUrl: request.displayUrl,
          redact,
        });
      }
      const interpreted = await interpretResponse({
        response,
        toolName: name,
        maxResponseBytes: options.maxResponseBytes,
        maxFileBytes: options.maxFileBytes,
        fileStore: options.fileStore,
        redact,
      });
      context.emitter.emit({
        type: 'custom-tool-delta',
        toolCallId: call.id,
        toolName: name,
        responseType: interpreted.responseType,
        data: interpreted.data,
        files: interpreted.files,
      });
      return interpreted.response;
    },
  };
}
