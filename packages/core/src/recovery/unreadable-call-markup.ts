// A block opened by a special token: `[TOOL_CALLS]`, `<|tool_call|>`, `<｜tool▁calls▁begin｜>`, `]<]minimax[>[`.
const specialTokenStart = /^(?:\[[A-Z_]{2,32}\]|<[|｜]|\]<\])/;
// A special token followed by a JSON or list body: the start of a call, however broken.
const specialTokenThenStructure = /^\S+?[\]>|｜]\s*[[{]/;

/** Whether `block` (markup text, marker first) opens with a special token rather than an XML-looking tag. */
export function opensWithSpecialToken(block: string): boolean {
  return specialTokenStart.test(block);
}

/**
 * Whether `text` (trimmed at the start) is a call the model wrote in its call channel and nobody can read: a
 * special token followed by a JSON or list body (`[TOOL_CALLS]{"content": Movement complete}`, llms-with-matlab
 * #94). Never shown raw: the call failed, and the turn's corrective message tells the model.
 */
export function isUnreadableCallMarkup(text: string): boolean {
  const start = text.trimStart();
  return specialTokenStart.test(start) && specialTokenThenStructure.test(start);
}
