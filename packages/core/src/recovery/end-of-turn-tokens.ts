/**
 * The end-of-turn tokens of common chat templates. A server that does not stop on them (or does not hide them)
 * leaves them in the text: inside a call block they end it, and right after a call they go with it, so neither
 * the screen nor the history keeps them.
 */
export const endOfTurnToken = Object.freeze({
  /** ChatML (Qwen, Hermes, many fine-tunes). */
  chatMl: '<|im_end|>',
  /** Llama 3: the end of a turn, and the end of a message that waits for a tool result. */
  llamaTurn: '<|eot_id|>',
  llamaMessage: '<|eom_id|>',
  /** DeepSeek V3 / R1 (fullwidth bars, `▁` for the spaces). */
  deepSeek: '<｜end▁of▁sentence｜>',
  /** Mistral (and Llama 2) end of sequence. */
  mistral: '</s>',
  /** GPT-2 style end of text (Phi, StarCoder, many base models). */
  endOfText: '<|endoftext|>',
  /**
   * OpenAI Harmony (gpt-oss): the end of a message that another follows, of the final answer, and of a message
   * that calls a tool.
   */
  harmonyEnd: '<|end|>',
  harmonyReturn: '<|return|>',
  harmonyCall: '<|call|>',
  /** Gemma 4's end of turn (its turns open with `<|turn>`). */
  gemma: '<turn|>',
});

/** Every {@link endOfTurnToken}. */
export const endOfTurnTokens: readonly string[] = Object.freeze(Object.values(endOfTurnToken));
