/** Cuts text for the model to `maxCharacters`, with a footer saying how much was left out. */
export function truncateOutput(text: string, maxCharacters: number): string {
  if (text.length <= maxCharacters) return text;
  return `${text.slice(0, maxCharacters)}\n... [output truncated, ${text.length - maxCharacters} characters omitted]`;
}
