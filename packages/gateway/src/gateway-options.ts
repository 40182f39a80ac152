import { z } from 'zod';
import { isModelPattern, isServedModelName, MODEL_PATTERN_RULE, SERVED_MODEL_RULE } from './model-aliases.ts';

/** One model server the gateway forwards to: any OpenAI-compatible base URL (vLLM, Ollama, llama.cpp, LM Studio…). */
export interface GatewayUpstream {
  /** A short name, used in logs and in the `x-toolbus-upstream` response header. */
  readonly name: string;
  /** The OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1` (`/chat/completions` and `/models` follow it). */
  readonly baseUrl: string;
  /** The NAME of the environment variable holding the upstream's key; the value is read at start, never logged. */
  readonly apiKeyEnv?: string | undefined;
  /** Models this upstream serves; a request naming one goes here. The first upstream takes the rest. */
  readonly models?: readonly string[] | undefined;
  /**
   * Where the models' chat templates are read, to learn how each writes calls: `auto` (the default: Ollama's
   * `/api/show`, then llama.cpp's `/props`), `ollama`, `llama.cpp`, `none`, or a template file's path or URL
   * (`tokenizer_config.json`, `chat_template.jinja`). Read once per model; needs the gateway's `fetch`.
   */
  readonly chatTemplate?: string | undefined;
}

/** Who a request comes from, once its key was checked: an id for limits and logs (never the key itself). */
export interface GatewayCaller {
  readonly id: string;
}

/** One structured log event: names and figures only, never prompt text, keys or header values. */
export interface GatewayLogEvent {
  readonly event: string;
  readonly [field: string]: string | number | boolean | undefined;
}

/** Options of the gateway's request handler. */
export interface GatewayOptions {
  readonly upstreams: readonly GatewayUpstream[];
  /**
   * Model aliases: a name (or a `*` pattern) a client sends → the model an upstream serves, resolved before the
   * upstream is chosen; e.g. `{"claude-*": "qwen3-coder"}`. `"*"` is the default for names nothing else matches
   * (none by default: such a name goes on as it is). Answers name the model the client asked for.
   */
  readonly models?: Readonly<Record<string, string>>;
  /** Where `apiKeyEnv` names are looked up (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Checks the key a client sent (`Authorization: Bearer …` or `x-api-key`); resolves to the caller, or undefined
   * to refuse with 401. Without it the gateway takes every request (only sensible on loopback).
   */
  readonly authenticate?: (key: string | undefined) => Promise<GatewayCaller | undefined>;
  /** Requests each caller may make per minute (default: no limit). */
  readonly requestsPerMinute?: number;
  /** Largest request body accepted (default 16 MiB); larger gets 413. */
  readonly maxRequestBytes?: number;
  /** Largest non-streaming upstream answer read (default 64 MiB); larger gets 502. */
  readonly maxResponseBytes?: number;
  /** How long the upstream may take to start answering (default 300 s). */
  readonly upstreamTimeoutMs?: number;
  /** The fetch that reads chat templates from the upstreams (none: the model profiles alone choose dialects). */
  readonly fetch?: typeof fetch;
  /** Structured log lines (default: none). */
  readonly log?: (event: GatewayLogEvent) => void;
}

/** The gateway's part of the config file (`gateway:` in `toolbus.config.json`). */
export const gatewayConfigSchema = z
  .object({
    upstreams: z
      .array(
        z
          .object({
            name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'a name of letters, digits, . _ - (at most 64)'),
            baseUrl: z.url({ protocol: /^https?$/, error: 'an http:// or https:// base URL' }),
            apiKeyEnv: z
              .string()
              .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the NAME of an environment variable, not the key itself')
              .optional(),
            models: z.array(z.string().min(1)).optional(),
            chatTemplate: z.string().min(1).optional(),
          })
          .strict(),
      )
      .min(1, 'at least one upstream'),
    models: z
      .record(z.string(), z.string().refine(isServedModelName, { error: SERVED_MODEL_RULE }))
      // The key's own issue, in words (zod's for a record key is "Invalid key in record").
      .superRefine((aliases, context) => {
        for (const pattern of Object.keys(aliases))
          if (!isModelPattern(pattern))
            context.addIssue({
              code: 'custom',
              path: [pattern],
              message: `${MODEL_PATTERN_RULE}, not "${pattern}"`,
            });
      })
      .optional(),
    requestsPerMinute: z.number().int().positive().optional(),
    maxRequestBytes: z.number().int().positive().optional(),
  })
  .strict();

/** The parsed `gateway` config. */
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
