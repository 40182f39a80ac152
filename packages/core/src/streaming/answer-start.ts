// Where the markup stream filter is in the answer: what decides whether a marker that must open the answer
// still can, whether a see-through wrapper's close is hidden, and whether blank lines before the text are dropped.

/**
 * Where the answer is: only blanks and thinking so far, started, started inside a see-through wrapper whose
 * opening the filter hid and whose close it will hide (see `ToolCallMarkupMarker.wrapsAnswer`), or opened by
 * call blocks alone (one still open, or all hidden).
 */
export type AnswerStart = 0 | 1 | 2 | 3 | 4;
export const notStarted: AnswerStart = 0;
/**
 * Only calls the filter hid (and blanks) so far: blanks are dropped until text comes, as after thinking. The states
 * before any text come first: `<= hiddenStart` says no text has passed.
 */
export const hiddenStart: AnswerStart = 1;
/** A call block opened the answer and is still open. */
export const inOpeningBlock: AnswerStart = 2;
export const started: AnswerStart = 3;
export const insideWrapper: AnswerStart = 4;
