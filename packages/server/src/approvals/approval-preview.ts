/** The longest payload preview an approval card gets (characters); the rest is cut with a marker. */
export const maxApprovalPreviewCharacters = 2000;

// Field names whose values look like secrets. The sandbox never holds a credential of ours, but code can still
// send a password the user typed into a chat; a card shown to other tabs and stored in the turn should not.
const secretFieldPattern =
  /pass(?:word|phrase)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key/i;

/**
 * The approval card's view of a request body: JSON, pretty-printed, values of secret-looking fields masked and
 * cut to {@link maxApprovalPreviewCharacters}. Undefined when the body could not be decoded.
 */
export function approvalPayloadPreview(payload: unknown): string | undefined {
  if (payload === undefined) return undefined;
  const text = JSON.stringify(
    payload,
    (key, value: unknown) => (key !== '' && secretFieldPattern.test(key) ? '[hidden]' : value),
    2,
  );
  if (text === undefined) return undefined;
  return text.length <= maxApprovalPreviewCharacters
    ? text
    : `${text.slice(0, maxApprovalPreviewCharacters)}\n… (${text.length - maxApprovalPreviewCharacters} more characters)`;
}
