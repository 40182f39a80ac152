import type { LocatedToolCall } from './extracted-tool-call.ts';

// Words by which a model says that the code it shows is a sample, not an act: "Here's a literal example",
// "illustrative", "this is documentation, not an actual call", "just a formatting example … not an actual tool
// call", "the correct request would look like this".
const exampleWording =
  /\b(?:examples?|e\.g\.|for instance|illustrat(?:e|es|ed|ion|ive)|samples?|would look like|looks like this|inert|(?:not|never) (?:an? )?(?:actual|real)\b)/i;

/** How far before a fence and after its close the framing of the code is looked for. */
const framingWindow = 400;

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
  const before = text.slice(Math.max(0, open - framingWindow), open);
  const close = text.indexOf('```', call.end);
  const after = close < 0 ? '' : text.slice(close + 3, close + 3 + framingWindow);
  return exampleWording.test(before) || exampleWording.test(after);
}
