/**
 * A rough token count of `characters` characters, about four a token for English and JSON: what toolbus uses where
 * no tokenizer is at hand (tool search's budget of definitions, the gateway's `count_tokens` estimate).
 */
export function roughTokenCount(characters: number): number {
  return Math.ceil(characters / 4);
}
