// What the benches' model servers write: OpenAI Chat Completions stream chunks, and a text stream paced at a
// fixed rate, one write per token (as a real model streams tokens, so each reaches its reader in a read of its
// own). Used by model-fetch's paced-sse-model.ts and the server bench's timestamping-model.ts.
import type { ServerResponse } from 'node:http';

/** One `chat.completion.chunk` event. */
export function chatCompletionChunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({
    id: 'bench',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'bench',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;
}

/**
 * Streams `tokens` text chunks on `response` (its head already written), one every `intervalMs`, each chunk's text
 * made at write time by `text(index)`; then the `stop` chunk and `[DONE]`. Stops when the reader goes away.
 */
export function writePacedTokens(
  response: ServerResponse,
  options: { readonly tokens: number; readonly intervalMs: number; readonly text: (index: number) => string },
): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (response.destroyed) {
      clearInterval(timer);
      return;
    }
    response.write(chatCompletionChunk({ content: options.text(sent) }));
    sent += 1;
    if (sent >= options.tokens) {
      clearInterval(timer);
      response.end(`${chatCompletionChunk({}, 'stop')}data: [DONE]\n\n`);
    }
  }, options.intervalMs);
  response.on('close', () => clearInterval(timer));
}
