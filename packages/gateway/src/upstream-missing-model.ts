import type { UpstreamErrorDetail } from './upstream.ts';

// How the model servers the gateway fronts say that the model a request named is not one they serve (each words
// it its own way):
// - vLLM (404): "The model `qwen3` does not exist." (`type: "NotFoundError"`);
// - Ollama (404): "model \"qwen3\" not found, try pulling it first" on its OpenAI API, "model 'qwen3' not found" on
//   its own;
// - llama.cpp's router (400, `invalid_request_error`): "model 'qwen3' not found";
// - OpenAI and servers that copy it: `code: "model_not_found"`, "The model `x` does not exist or you do not have
//   access to it.".
// A server with no such route answers a 404 that names no model ("Not Found", an HTML page, nothing).
const missingModelWords =
  /\bmodel\b[^.\n]{0,200}?\b(?:does not exist|doesn't exist|not found|is not available|unknown)\b|\b(?:unknown|no such|invalid) model\b/i;

/**
 * Whether an upstream's error says that the model the request named is missing: a 404 or 400 whose code is
 * `model_not_found` or whose message says so in the words vLLM, Ollama, llama.cpp and OpenAI use. Any other 404 is
 * not "no such model": most likely the upstream has no such route (a base URL that misses `/v1`, a server that does
 * not speak that API).
 */
export function saysModelIsMissing(status: number, said: UpstreamErrorDetail): boolean {
  if (status !== 404 && status !== 400) return false;
  if (said.code === 'model_not_found') return true;
  return said.message !== undefined && missingModelWords.test(said.message);
}
