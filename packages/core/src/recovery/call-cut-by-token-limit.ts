/**
 * The call the output token limit cut in `text`, an answer that ended on that limit, if it cut one: the last call
 * read from the text (`calls` in order of appearance), when its markup runs to the end of what was written
 * (trailing white space aside). The model was then still writing it when the limit struck, and whatever closed it
 * (its arguments, its tags) came from repair, not from the model. Only the last call can be the one: every call
 * before it closed, since the model went on to write another. Calls of one block (a Mistral or Granite array, a
 * pythonic list) share the block's range, so that rule, not the range alone, tells the whole ones from the cut one.
 * Fail closed: the last call counts as cut even when only its block's closing (a `]`) is missing, since its
 * arguments may be a guess at what the model meant, and a guess is never run nor handed on as made.
 *
 * The one rule for "which call the limit cut", read by the turn loop (`recoverStep`) and by the answer repair the
 * recovery gateway and the AI SDK middleware run on (`AnswerRepair.end`).
 */
export function callCutByTokenLimit<Call extends { readonly end: number }>(
  calls: readonly Call[],
  text: string,
): Call | undefined {
  const last = calls.at(-1);
  return last !== undefined && last.end >= text.trimEnd().length ? last : undefined;
}
