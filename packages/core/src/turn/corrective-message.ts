import { exampleArguments, type ToolDefinition } from '@toolbus/spec';
import type { ToolCallMarkupMarker } from '../recovery/tool-call-markup-marker.ts';
import { withoutToolCallMarkupTags } from '../recovery/tool-call-markup-marker.ts';
import { ToolCallMarkupStreamFilter } from '../streaming/tool-call-markup-stream-filter.ts';

/** The message a model gets when it wrote a tool call that could not be read (if enabled). */
export const DEFAULT_CORRECTIVE_MESSAGE =
  'Your last message tried to call a tool, but the call could not be read. Call the tool again using the ' +
  'tool-calling interface (not text in your answer), with arguments that match its JSON schema.';

const retryAdvice = 'using the tool-calling interface (not text in your answer)';

// Where the dialects write the name of the tool they call, so the corrective message can say which call
// failed: Harmony's recipient, a JSON `"name"` key, `<invoke name="…">`, Qwen3-Coder's `<function=…>`, Kimi's
// `functions.name:0`, GLM's `<tool_call>name<arg_key>`, Mistral's `[TOOL_CALLS]name`, Qwen-Agent's `✿FUNCTION✿:`.
// Model output is hostile: a name is at most 64 characters and never spans a line or a quote.
const namePatterns: readonly RegExp[] = [
  /\bto=functions\.([\w.-]{1,64})/,
  /["']name["']\s*:\s*["']([^"'\n]{1,64})["']/,
  /<invoke\s+name\s*=\s*["']([^"'\n]{1,64})["']/i,
  /<function=([\w.-]{1,64})/,
  /<\|tool_call_begin\|>\s*(?:functions\.)?([\w-]{1,64})/,
  /<tool_call>\s*([\w.-]{1,64})\s*<arg_key>/,
  /\[TOOL_CALLS\]\s*([\w.-]{1,64})/,
  /✿FUNCTION✿:\s*([\w.-]{1,64})/,
];

/** The tool name the first call-shaped text in `text` names, if any (the earliest match wins). */
function calledToolName(text: string): string | undefined {
  let best: { at: number; name: string } | undefined;
  for (const pattern of namePatterns) {
    const match = pattern.exec(text);
    if (match?.[1] !== undefined && (best === undefined || match.index < best.at)) {
      best = { at: match.index, name: match[1] };
    }
  }
  return best?.name;
}

/**
 * What a model reads after a tool call it wrote as text could not be read: the default message, made specific
 * when the text names the tool it meant. A name that is not one of the offered tools is named with the tools
 * it may call; a known tool whose arguments could not be read is named with an example of its arguments.
 */
export function correctiveMessageFor(text: string, definitions: readonly ToolDefinition[]): string {
  const name = calledToolName(text);
  if (name === undefined) return DEFAULT_CORRECTIVE_MESSAGE;
  const definition = definitions.find((candidate) => candidate.name === name);
  if (definition === undefined) {
    const tools = definitions.map((candidate) => `"${candidate.name}"`).join(', ');
    return (
      `Your last message tried to call "${name}", but the call could not be read: there is no tool named ` +
      `"${name}". Your tools are ${tools}. Call one of them ${retryAdvice}, with arguments that match its JSON ` +
      'schema.'
    );
  }
  const example = JSON.stringify(exampleArguments(definition.parameters));
  return (
    `Your last message tried to call "${name}", but the call could not be read: its arguments are not a ` +
    `readable JSON object. Call it again ${retryAdvice}, with arguments that match its JSON schema, for ` +
    `example ${example}.`
  );
}

/**
 * What a step whose call could not be read says to the conversation: its text without any markup block (the
 * unreadable call inside it included), without reasoning blocks and without stray tags and special tokens.
 * This, never the raw text, is what the model reads of its failed attempt: a chat template may refuse its own
 * special tokens in history (gpt-oss's refuses `<|channel|>`), and markup sent back teaches the model to
 * write more of it.
 */
export function withoutCallMarkup(text: string, markers: readonly ToolCallMarkupMarker[]): string {
  const filter = new ToolCallMarkupStreamFilter(markers);
  const outside = filter.process(text) + filter.flush();
  return withoutToolCallMarkupTags(outside, markers).trim();
}
