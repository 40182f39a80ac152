// Clients send the model names they know: Claude Code sends `claude-…` names (and another for its small side
// tasks), Continue, Cline, Open WebUI and Aider whatever their user typed. An alias maps such a name to a model an
// upstream serves, before the upstream is chosen, so the request reaches a server that has the model.

/** A name a client may send, with `*` matching any run of characters; `claude-*`, `gpt-4o`, `*` (every name). */
export const MODEL_PATTERN_RULE =
  'a model name or pattern: 1 to 256 characters, no spaces, `*` for any run of characters (not `**`)';
/** A model an upstream serves. */
export const SERVED_MODEL_RULE = 'a served model name: 1 to 256 characters, no spaces and no `*`';

const PATTERN = /^(?!.*\*\*)[^\s\p{Cc}]{1,256}$/u;
const SERVED = /^[^\s\p{Cc}*]{1,256}$/u;

/** Whether `pattern` is a valid alias pattern (no spaces or control characters, no `**`). */
export function isModelPattern(pattern: string): boolean {
  return PATTERN.test(pattern);
}

/** Whether `name` is a valid alias target (a served model's name: no `*`). */
export function isServedModelName(name: string): boolean {
  return SERVED.test(name);
}

/** What a client's model name resolves to. */
export interface ResolvedModel {
  /** The name the client sent: echoed back in the answer's `model`. */
  readonly asked: string;
  /** The name sent to the upstream (the alias's target, or `asked` when no alias matched). */
  readonly served: string;
  /** The pattern that matched, when one did. */
  readonly alias: string | undefined;
}

interface CompiledAlias {
  readonly pattern: string;
  readonly target: string;
  readonly matcher: RegExp;
  /** Characters other than `*`: the more a pattern spells out, the sooner it is tried. */
  readonly literal: number;
}

/**
 * The gateway's model aliases. A name resolves to its exact alias first; a name an upstream serves is then sent
 * as it is (a pattern never takes a model away from the server that has it: with `"*"`, Open WebUI's pick among
 * Ollama's models still reaches that model); then the pattern that spells out the most characters
 * (`claude-3-5-haiku*` before `claude-*`; the first written wins a tie), and `*` alone, which matches every name,
 * last: it is the default for names nothing else matches (off unless configured). A name no alias matches is sent
 * on as it is.
 */
export class ModelAliases {
  readonly #exact = new Map<string, string>();
  readonly #patterns: CompiledAlias[] = [];

  constructor(aliases: Readonly<Record<string, string>> = {}) {
    for (const [pattern, target] of Object.entries(aliases)) {
      if (!isModelPattern(pattern))
        throw new TypeError(`models: expected ${MODEL_PATTERN_RULE}, not "${pattern}".`);
      if (!isServedModelName(target))
        throw new TypeError(`models.${pattern}: expected ${SERVED_MODEL_RULE}, not "${target}".`);
      if (!pattern.includes('*')) {
        this.#exact.set(pattern, target);
        continue;
      }
      const source = pattern
        .split('*')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*');
      this.#patterns.push({
        pattern,
        target,
        matcher: new RegExp(`^${source}$`, 's'),
        literal: pattern.replaceAll('*', '').length,
      });
    }
    // Stable: equal lengths keep the order they were written in.
    this.#patterns.sort((a, b) => b.literal - a.literal);
  }

  /** Whether any alias is configured (none: every name goes on as it is, and answers are not rewritten). */
  get empty(): boolean {
    return this.#exact.size === 0 && this.#patterns.length === 0;
  }

  /** The exact aliases (client name → served name): `GET /v1/models` lists them beside the served models. */
  get exactNames(): ReadonlyMap<string, string> {
    return this.#exact;
  }

  /** The patterns and their targets, most specific first (for error messages). */
  get patterns(): readonly { readonly pattern: string; readonly target: string }[] {
    return this.#patterns;
  }

  /** Whether a pattern would take `asked` (so whether the names served decide): not for an exact alias. */
  patternMatches(asked: string): boolean {
    return !this.#exact.has(asked) && this.#patterns.some((alias) => alias.matcher.test(asked));
  }

  /** The name to send upstream; `served` (the upstreams' model names) keeps a served name from the patterns. */
  resolve(asked: string, served?: ReadonlySet<string>): ResolvedModel {
    const exact = this.#exact.get(asked);
    if (exact !== undefined) return { asked, served: exact, alias: asked };
    if (served?.has(asked) === true) return { asked, served: asked, alias: undefined };
    for (const alias of this.#patterns)
      if (alias.matcher.test(asked)) return { asked, served: alias.target, alias: alias.pattern };
    return { asked, served: asked, alias: undefined };
  }
}

// A JSON `"model": "…"` member. Inside a JSON string every `"` is escaped, so this matches only a key of the JSON
// itself, never text that looks like one (see plain-content-chunk.ts).
const MODEL_MEMBER = /"model"\s*:\s*"(?:[^"\\]|\\.)*"/g;

/**
 * `json` (an answer, a chunk, or SSE text of several chunks) with every `model` member naming `asked`: an aliased
 * request's answer names the model the client asked for (as LiteLLM's proxy does), not the served one, which the
 * `x-toolbus-model` header names. Claude Code reads the answer's `model` to find the context window and the cost;
 * an unknown served name there leaves both unknown.
 */
export function withModelName(json: string, asked: string): string {
  const member = `"model":${JSON.stringify(asked)}`;
  return json.replace(MODEL_MEMBER, () => member);
}

/** Names the model an aliased request was sent to (the answer's `model` names the one the client asked for). */
export const MODEL_HEADER = 'x-toolbus-model';

/** The response headers for a resolved name: `x-toolbus-model` when an alias applied, none otherwise. */
export function modelHeaders(model: ResolvedModel): Record<string, string> {
  return model.served === model.asked ? {} : { [MODEL_HEADER]: model.served };
}
