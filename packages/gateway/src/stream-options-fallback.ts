import type { ResolvedUpstream } from './upstream.ts';

// The Messages route asks the upstream for the usage chunk (`stream_options: {include_usage: true}`): Anthropic's
// `message_delta` carries the answer's token counts, which Claude Code sizes its context with. vLLM, llama.cpp and
// Ollama (0.5.2 on) send it; LM Studio (lmstudio-bug-tracker#713), older Ollama and TGI (TGI#2531) ignore the field. Strict OpenAI-compatible APIs
// refuse it (Mistral's: 422 `extra_forbidden`; Azure AI Foundry's serverless models: 400 "unrecognized request
// argument"), which failed every streamed Messages request. Such an upstream is asked again without the field,
// and from then on never with it: its streams end with counts of 0, as Anthropic's clients take them.

const refusing = new WeakSet<ResolvedUpstream>();

/** The request as this upstream takes it: without `stream_options` once it refused them. */
export function streamOptionsFor(
  upstream: ResolvedUpstream,
  chat: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  if (chat.stream_options === undefined || !refusing.has(upstream)) return chat;
  const { stream_options: _, ...rest } = chat;
  return rest;
}

/**
 * Whether an upstream's error answer refuses `stream_options` (a 400 or 422 whose body names the field); if so it
 * is remembered, and the caller asks again without it.
 */
export function refusedStreamOptions(upstream: ResolvedUpstream, status: number, body: Buffer): boolean {
  if ((status !== 400 && status !== 422) || !body.toString('utf8').includes('stream_options')) return false;
  refusing.add(upstream);
  return true;
}
