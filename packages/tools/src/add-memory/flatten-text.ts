/**
 * Puts user-written text on one line: control characters and line breaks become spaces, runs of spaces shrink.
 * Memories and chat excerpts are the user's words placed into prompts, where a line break could forge structure.
 */
export function flattenText(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}
