import { omitUndefined } from '@toolbus/spec';
import { dialectFromChatTemplate, type TemplateDialect } from './chat-template-dialect.ts';
import type { ToolCallTextParser } from './extracted-tool-call.ts';
import { findModelProfile, type ModelProfile } from './model-profiles.ts';
import { defaultToolCallParsers } from './tool-call-parser-registry.ts';

/** Where a model's chat template can be read. */
export type ChatTemplateSource =
  /** Ollama: `POST /api/show {"model"}` answers `template` and `capabilities` (`"tools"` when it calls tools). */
  | { readonly kind: 'ollama'; readonly baseUrl: string; readonly model: string }
  /** llama.cpp's server: `GET /props` answers `chat_template`. */
  | { readonly kind: 'llama.cpp'; readonly baseUrl: string }
  /**
   * A Hugging Face `tokenizer_config.json` (its `chat_template`, a string or named templates), a
   * `chat_template.jinja`, or a `response_template` file, by path or URL.
   */
  | { readonly kind: 'file'; readonly path?: string; readonly url?: string };

/** A chat template as the serving stack reports it. */
export interface ServedChatTemplate {
  readonly template: string;
  /** Whether the stack says the model calls tools (Ollama's `tools` capability); undefined when it does not say. */
  readonly supportsTools?: boolean;
}

/** Options for {@link readServedChatTemplate}. */
export interface ReadServedChatTemplateOptions {
  /**
   * The fetch for a stack or URL (needed for every source but a local path): a guarded one (`createGuardedFetch`)
   * for addresses users configure.
   */
  readonly fetch?: typeof fetch;
  /** Reads a local file (default `node:fs/promises` `readFile`, as UTF-8). */
  readonly readFile?: (path: string) => Promise<string>;
  readonly signal?: AbortSignal;
}

/**
 * Reads the chat template a serving stack uses for a model. Undefined when the stack has none or does not
 * answer as documented; never throws for a stack's bad answer (recovery then keeps its usual behaviour).
 */
export async function readServedChatTemplate(
  source: ChatTemplateSource,
  options: ReadServedChatTemplateOptions = {},
): Promise<ServedChatTemplate | undefined> {
  const fetcher = options.fetch;
  const signal = options.signal;
  try {
    if (!fetcher && (source.kind !== 'file' || source.url)) return undefined;
    if (source.kind === 'ollama') {
      const response = await fetcher!(new URL('/api/show', source.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: source.model }),
        ...omitUndefined({ signal }),
      });
      if (!response.ok) return undefined;
      const body = (await response.json()) as { template?: unknown; capabilities?: unknown };
      if (typeof body.template !== 'string' || body.template === '') return undefined;
      const capabilities = Array.isArray(body.capabilities) ? body.capabilities : undefined;
      return {
        template: body.template,
        ...(capabilities ? { supportsTools: capabilities.includes('tools') } : {}),
      };
    }
    if (source.kind === 'llama.cpp') {
      const response = await fetcher!(new URL('/props', source.baseUrl), omitUndefined({ signal }));
      if (!response.ok) return undefined;
      const body = (await response.json()) as { chat_template?: unknown };
      return typeof body.chat_template === 'string' && body.chat_template !== ''
        ? { template: body.chat_template }
        : undefined;
    }
    const text = source.url
      ? await fetcher!(source.url, omitUndefined({ signal })).then((response) =>
          response.ok ? response.text() : undefined,
        )
      : source.path
        ? await (options.readFile ?? readUtf8File)(source.path)
        : undefined;
    return text === undefined ? undefined : templateOfFile(text);
  } catch {
    return undefined;
  }
}

/** A `tokenizer_config.json`'s template (the `tool_use` one when it names several), else the file as it is. */
function templateOfFile(text: string): ServedChatTemplate | undefined {
  if (text.trim() === '') return undefined;
  let config: { chat_template?: unknown };
  try {
    config = JSON.parse(text) as { chat_template?: unknown };
  } catch {
    // A Jinja file (`{%- … %}` opens like JSON but is not).
    return { template: text };
  }
  if (typeof config !== 'object' || config === null) return undefined;
  const template = config.chat_template;
  if (typeof template === 'string') return { template };
  if (Array.isArray(template)) {
    const named = template as Array<{ name?: unknown; template?: unknown }>;
    const chosen =
      named.find((entry) => entry.name === 'tool_use') ?? named.find((entry) => entry.name === 'default');
    if (chosen && typeof chosen.template === 'string') return { template: chosen.template };
  }
  return undefined;
}

async function readUtf8File(path: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(path, 'utf8');
}

/** Template dialects by model, each read and derived once (see {@link createTemplateDialectCache}). */
export interface TemplateDialectCache {
  /**
   * The dialect of the model known as `modelKey` (say `ollama:http://host:11434:qwen3-coder`): `load` runs once
   * per key, concurrent callers share it, and a failed load is forgotten so a later call tries again.
   */
  dialectFor(
    modelKey: string,
    load: () => Promise<ServedChatTemplate | string | undefined>,
  ): Promise<TemplateDialect | undefined>;
}

export function createTemplateDialectCache(): TemplateDialectCache {
  const entries = new Map<string, Promise<TemplateDialect | undefined>>();
  return {
    dialectFor(modelKey, load) {
      let entry = entries.get(modelKey);
      if (!entry) {
        entry = load().then((served) => {
          const template = typeof served === 'string' ? served : served?.template;
          return template ? dialectFromChatTemplate(template) : undefined;
        });
        entries.set(modelKey, entry);
        entry.catch(() => entries.delete(modelKey));
      }
      return entry.catch(() => undefined);
    },
  };
}

/** What recovery is told for one model: the dialects tried first, and the parsers when the template adds any. */
export interface RecoveryDialects {
  readonly dialects: readonly string[] | undefined;
  readonly parsers: readonly ToolCallTextParser[] | undefined;
}

/**
 * The dialects recovery tries first for a model: those its served template writes, then its family's in the
 * model-profile table. Without either, undefined (every dialect at once, as before). Pass `dialects` and
 * `parsers` to `runChatTurn`'s `recovery` options, `extractToolCallsFromText` or the answer filter.
 */
export function recoveryDialectsFor(options: {
  readonly modelId?: string;
  readonly template?: TemplateDialect;
  readonly profiles?: readonly ModelProfile[];
}): RecoveryDialects {
  const profile = findModelProfile(options.modelId, options.profiles);
  const dialects = [...new Set([...(options.template?.dialects ?? []), ...(profile?.dialects ?? [])])];
  const extra = options.template?.parsers ?? [];
  return {
    dialects: dialects.length > 0 ? dialects : undefined,
    parsers: extra.length > 0 ? withDefaultParsers(extra) : undefined,
  };
}

const parsersWithDefaults = new WeakMap<readonly ToolCallTextParser[], readonly ToolCallTextParser[]>();

// One list per template (a template's parsers are read once per model): recovery caches its needles and marker
// tables per parser list, so a list built afresh for every request would rebuild them each time.
function withDefaultParsers(extra: readonly ToolCallTextParser[]): readonly ToolCallTextParser[] {
  let parsers = parsersWithDefaults.get(extra);
  if (parsers === undefined) {
    parsers = [...extra, ...defaultToolCallParsers];
    parsersWithDefaults.set(extra, parsers);
  }
  return parsers;
}
