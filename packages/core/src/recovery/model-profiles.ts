/**
 * Which tool-call dialects a model family writes as text, by dialect parser name (see the parser registry).
 * Recovery tries a known family's dialects first and falls back to every dialect only when they find nothing,
 * so a Qwen answer's prose is not read as a Mistral or a pythonic call by accident; unknown models get every
 * dialect. Text the answer filter hid as it streamed is read with every dialect all the same (a hidden call is
 * never dropped: calls-cut-while-streaming.ts).
 */
export interface ModelProfile {
  /** A short family name (`qwen2.5`, `mistral`, …). */
  readonly family: string;
  /** Matched against the lower-cased model id (`Qwen/Qwen2.5-7B-Instruct`, `qwen2.5:7b`, `llama3.1:8b`). */
  readonly pattern: RegExp;
  /**
   * The dialect parser names this family writes, most likely first. Never the catch-all `json` scan: tried alone
   * it would read a dialect's JSON body as bare arguments and leave the dialect's tokens behind; bare JSON calls
   * are still found by the fallback to every dialect.
   */
  readonly dialects: readonly string[];
}

/**
 * The built-in table, most specific first (Qwen3-Coder before Qwen, Nemotron and Llama 4 before Llama 3.2 before
 * Llama 3).
 * Written from each family's published chat template and tool-calling documentation.
 */
export const defaultModelProfiles: readonly ModelProfile[] = Object.freeze([
  {
    family: 'qwen3-coder',
    pattern: /qwen3(?:\.\d)?-?coder|qwen3\.5|qwen3-next/,
    dialects: ['function-tag', 'hermes'],
  },
  // Qwen-Agent prompts these models with its own `✿FUNCTION✿` format.
  { family: 'qwen', pattern: /qwen|qwq/, dialects: ['hermes', 'function-tag', 'qwen-tools', 'qwen-agent'] },
  { family: 'hermes', pattern: /hermes|nous/, dialects: ['hermes', 'hermes-tags'] },
  {
    family: 'mistral',
    pattern: /mistral|mixtral|ministral|devstral|magistral|codestral/,
    dialects: ['mistral-args', 'mistral'],
  },
  { family: 'nemotron', pattern: /nemotron/, dialects: ['nemotron', 'function-tag'] },
  { family: 'llama-4', pattern: /llama[-_ ]?4/, dialects: ['pythonic', 'llama3-json'] },
  { family: 'llama-3.2', pattern: /llama[-_ ]?3\.[23]/, dialects: ['pythonic', 'llama3-json'] },
  {
    family: 'llama-3.1',
    pattern: /llama[-_ ]?3/,
    dialects: ['llama3-json', 'function-tag', 'pythonic'],
  },
  { family: 'gemma', pattern: /gemma/, dialects: ['gemma', 'pythonic'] },
  { family: 'granite', pattern: /granite/, dialects: ['granite', 'granite-20b-fc'] },
  { family: 'deepseek', pattern: /deepseek/, dialects: ['deepseek', 'xml-invoke'] },
  { family: 'kimi', pattern: /kimi|moonshot/, dialects: ['kimi'] },
  { family: 'glm', pattern: /glm/, dialects: ['named-tool-call-tag'] },
  { family: 'gpt-oss', pattern: /gpt-oss/, dialects: ['harmony'] },
  { family: 'functionary', pattern: /functionary/, dialects: ['functionary', 'function-tag'] },
  // Command R7B and A write `<|START_ACTION|>`; Command R / R+ a fenced list after `Action:` (the `react` parser).
  { family: 'command', pattern: /command-?r|command-a|cohere/, dialects: ['command', 'react'] },
  // MiniMax-M2 writes `<minimax:tool_call>` XML, MiniMax-M1 JSON lines in `<tool_calls>` (the `jamba` tags).
  { family: 'minimax', pattern: /minimax/, dialects: ['xml-invoke', 'jamba'] },
  { family: 'seed-oss', pattern: /seed-oss/, dialects: ['function-tag'] },
  { family: 'phi-4-mini', pattern: /phi-?4-mini/, dialects: ['phi4-mini'] },
  { family: 'lfm2', pattern: /lfm2/, dialects: ['pythonic'] },
  { family: 'olmo', pattern: /olmo/, dialects: ['pythonic', 'xml-invoke'] },
  { family: 'internlm', pattern: /internlm/, dialects: ['internlm'] },
  { family: 'jamba', pattern: /jamba/, dialects: ['jamba'] },
  { family: 'apertus', pattern: /apertus/, dialects: ['apertus'] },
  { family: 'longcat', pattern: /longcat/, dialects: ['longcat'] },
]);

/** The profile of the first family whose pattern matches `modelId`, or undefined (auto-detection). */
export function findModelProfile(
  modelId: string | undefined,
  profiles: readonly ModelProfile[] = defaultModelProfiles,
): ModelProfile | undefined {
  if (typeof modelId !== 'string' || modelId === '') return undefined;
  const id = modelId.toLowerCase();
  return profiles.find((profile) => profile.pattern.test(id));
}
