import type {
  AvailabilityContext,
  ConcurrencyClass,
  JsonSchema,
  MergeableField,
  Placement,
  Tool,
  ToolCall,
  ToolDefinition,
  ToolEmitter,
  ToolResponse,
  ToolRunContext,
} from '@toolbus/spec';
import {
  exampleArguments,
  omitUndefined,
  ToolbusError,
  ToolExecutionError,
  toolNamePattern,
} from '@toolbus/spec';
import * as z from 'zod';
import { invalidArgumentsError } from './invalid-arguments-error.ts';

/** Options for {@link defineTool}. */
export interface DefineToolOptions<Parameters extends z.ZodObject> {
  readonly name: string;
  readonly description: string;
  /** What people see; defaults to the name. */
  readonly displayName?: string;
  /** The arguments' schema: its JSON schema is what the model sees, and it validates what the model sends. */
  readonly parameters: Parameters;
  /** Arguments shown to the model after an invalid call; derived from the schema when absent. */
  readonly exampleArguments?: z.input<Parameters>;
  readonly concurrency?: ConcurrencyClass;
  readonly timeoutMs?: number | undefined;
  readonly streamsArgumentDeltas?: boolean;
  /** A successful run ends the turn's loop (see `Tool.stopsTurn`). Default false. */
  readonly stopsTurn?: boolean;
  /** The list-of-strings argument under which this tool's calls of one cycle merge (see `Tool.mergeableField`). */
  readonly mergeableField?: MergeableField | undefined;
  /** At most this many calls of this tool run per cycle (see `Tool.maxCallsPerCycle`). */
  readonly maxCallsPerCycle?: number;
  readonly isAvailable?: (context: AvailabilityContext) => boolean | Promise<boolean>;
  /**
   * Give the model the message of a plain error `run` throws (`throw new Error('backend returned 503')`), as a
   * `ToolExecutionError` with code `tool_error`. Off by default: an unexpected error's text may carry internals
   * (paths, URLs with tokens), so the model reads only that the tool stopped with an internal error. Typed errors
   * (`ToolCallError`, `ToolExecutionError`) always reach the model as they say, with this on or off.
   */
  readonly passErrorMessages?: boolean;
  /** Defaults to a `tool-start` packet with the tool's name and arguments. */
  readonly emitStart?: (placement: Placement, emitter: ToolEmitter, call: ToolCall) => void;
  /** Runs with validated, typed arguments. A string return is the model-facing response. */
  readonly run: (
    args: z.output<Parameters>,
    context: ToolRunContext & { readonly call: ToolCall },
  ) => Promise<ToolResponse | string> | ToolResponse | string;
}

// A tool made per turn from a schema defined once (at module level) converts it once per process: the conversion
// costs about a millisecond per tool, on every turn's start otherwise. Zod schemas are immutable, so the JSON
// schema of one never changes.
const jsonSchemas = new WeakMap<z.ZodObject, JsonSchema>();

function parametersJsonSchema(schema: z.ZodObject): JsonSchema {
  let converted = jsonSchemas.get(schema);
  if (converted === undefined) {
    const { $schema: _ignored, ...parameters } = z.toJSONSchema(schema, { io: 'input' }) as Record<
      string,
      unknown
    >;
    converted = { ...parameters, properties: parameters.properties ?? {} };
    jsonSchemas.set(schema, converted);
  }
  return converted;
}

/**
 * Defines a tool from a zod object schema. The schema is the single source of truth: its JSON schema goes to the
 * model, and the same schema validates the model's arguments; invalid arguments become a `ToolCallError` whose
 * model message lists the problems and shows a correct example call.
 */
export function defineTool<Parameters extends z.ZodObject>(options: DefineToolOptions<Parameters>): Tool {
  if (!toolNamePattern.test(options.name)) {
    throw new TypeError(
      `Tool name "${options.name}" must match ${toolNamePattern} (every provider accepts that).`,
    );
  }
  let definition: ToolDefinition | undefined;
  const getDefinition = (): ToolDefinition => {
    definition ??= {
      name: options.name,
      description: options.description,
      parameters: parametersJsonSchema(options.parameters),
    };
    return definition;
  };
  const displayName = options.displayName ?? options.name;
  return {
    name: options.name,
    description: options.description,
    displayName,
    streamsArgumentDeltas: options.streamsArgumentDeltas ?? false,
    concurrency: options.concurrency ?? 'parallel',
    timeoutMs: options.timeoutMs,
    ...(options.stopsTurn === true ? { stopsTurn: true } : {}),
    mergeableField: options.mergeableField,
    ...omitUndefined({ maxCallsPerCycle: options.maxCallsPerCycle }),
    definition: getDefinition,
    isAvailable: options.isAvailable ?? (() => true),
    emitStart:
      options.emitStart ??
      ((_placement, emitter, call) => {
        emitter.emit({
          type: 'tool-start',
          toolCallId: call.id,
          toolName: call.name,
          displayName,
          arguments: call.arguments,
        });
      }),
    async run(call, context) {
      const parsed = options.parameters.safeParse(call.arguments);
      if (!parsed.success) {
        throw invalidArgumentsError({
          toolName: options.name,
          issues: parsed.error.issues.map((issue) => ({
            path: issue.path.filter((part): part is string | number => typeof part !== 'symbol'),
            message: issue.message,
          })),
          exampleArguments:
            (options.exampleArguments as Record<string, unknown> | undefined) ??
            exampleArguments(getDefinition().parameters),
        });
      }
      let result: ToolResponse | string;
      try {
        result = await options.run(parsed.data, { ...context, call });
      } catch (thrown) {
        throw options.passErrorMessages === true ? withMessageForModel(thrown) : thrown;
      }
      return typeof result === 'string' ? { llmFacing: result } : result;
    },
  };
}

/**
 * A plain error as one whose message the model reads. Errors of ours (typed, or the guard's) and timeouts or
 * aborts pass unchanged: the runner already words those for the model.
 */
function withMessageForModel(thrown: unknown): unknown {
  if (!(thrown instanceof Error) || ToolbusError.isInstance(thrown)) return thrown;
  if (thrown.name === 'TimeoutError' || thrown.name === 'AbortError') return thrown;
  return new ToolExecutionError({ code: 'tool_error', message: thrown.message, cause: thrown });
}
