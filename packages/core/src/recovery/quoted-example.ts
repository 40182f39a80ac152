import type { LocatedToolCall } from './extracted-tool-call.ts';

// Words by which a model says that the code it shows is a sample, not an act: "Here's a literal example",
// "illustrative", "this is documentation, not an actual call", "just a formatting example … not an actual tool
// call", "the correct request would look like this".
// A word, not part of a name (`example.org`, `sample-app`).
const exampleWording =
  /\b(?:examples?|e\.g\.|for instance|illustrat(?:e|es|ed|ion|ive)|samples?|would look like|looks like this|inert|(?:not|never) (?:an? )?(?:actual|real))\b(?![.\-/@]\w)/i;

/**
 * How far before a fence and after its close the framing of the code is looked for (the answer filter holds a
 * fenced call after prose until it has seen this much after the close, or the answer's end).
 */
export const exampleFramingWindow = 400;
const framingWindow = exampleFramingWindow;

/**
 * Whether `call`, found inside a fenced code block, is shown as an example: the prose right before the fence or
 * right after it calls the code an example, an illustration or not a real call. Models asked how a call looks
 * answer with one in a fence and say so (three of the real-world corpus's Claude transcripts); a model that
 * means the call writes it bare or fences it without such words (Qwen2.5's fenced `<tool_call>`), which stays a
 * call.
 */
export function isQuotedExample(text: string, call: LocatedToolCall): boolean {
  const open = text.lastIndexOf('```', call.start);
  if (open < 0) return false;
  if (isQuotedInvoke(text, call, open)) return true;
  const before = text.slice(Math.max(0, open - framingWindow), open);
  const close = text.indexOf('```', call.end);
  const after = close < 0 ? '' : text.slice(close + 3, close + 3 + framingWindow);
  return exampleWording.test(before) || exampleWording.test(after);
}

/**
 * An Anthropic-style `<invoke>` element alone in an `xml` fence: how Claude models quote a call when asked what
 * one looks like (four transcripts of the real-world corpus, with and without words around it). No open model
 * writes its calls so: MiniMax wraps `<invoke>` in its own `<minimax:tool_call>`, DeepSeek in DSML tokens.
 */
function isQuotedInvoke(text: string, call: LocatedToolCall, fenceOpen: number): boolean {
  if (!text.startsWith('<invoke', call.start)) return false;
  const infoEnd = text.indexOf('\n', fenceOpen);
  if (infoEnd < 0 || infoEnd > call.start) return false;
  const info = text
    .slice(fenceOpen + 3, infoEnd)
    .trim()
    .toLowerCase();
  return info === 'xml' && text.slice(infoEnd, call.start).trim() === '';
}
