import { ModelRequestError, ModelStallError, ModelStreamError, ModelUnavailableError } from '@toolbus/core';
import type { ToolbusError } from '@toolbus/spec';
import type { ModelResponseObservation } from './observed-model-fetch.ts';
import { oneLine } from './one-line.ts';

// What the provider package says when an event's data is not JSON, or not the shape of a stream chunk.
const unreadableEvent = /JSON parsing failed|Type validation failed|Invalid JSON|is not valid JSON/i;

/**
 * A model failure in words a user can act on: what the server did (an HTML page or a plain JSON body where a
 * stream was expected, a 404 that probably means a base URL without `/v1`, a dropped connection, no headers at
 * all) and what to try. Falls back to the error's own message.
 */
export function describeModelError(
  error: ToolbusError,
  observation: ModelResponseObservation | undefined,
): string {
  const at = observation ? ` at ${observation.origin}${observation.path}` : '';
  if (ModelRequestError.isInstance(error) && error.statusCode === 404) {
    const path = observation?.path ?? '';
    const missingV1 = !/\/v\d+(\/|$)/.test(path);
    return missingV1
      ? `the model server answered 404 Not Found${at}. The base URL probably lacks /v1: write it as http://host:port/v1 (e.g. openai-compatible:http://localhost:8000/v1#model).`
      : `the model server answered 404 Not Found${at}: the model name may be wrong, or the server does not serve the chat completions API. (${error.message})`;
  }
  if (
    ModelStreamError.isInstance(error) &&
    observation &&
    observation.status > 0 &&
    observation.status < 300
  ) {
    if (observation.mediaType === 'text/html') {
      return `the server${at} sent an HTML page where a model stream was expected: this URL is a web site, not an OpenAI-compatible API. Check the host, port and path (it usually ends in /v1).`;
    }
    if (observation.mediaType === 'application/json') {
      return `the server${at} answered with one JSON body where a stream (server-sent events) was expected: it does not support streaming, or ignores "stream": true. Use a server that streams (vLLM, Ollama, llama-server, LM Studio do).`;
    }
    if (observation.mediaType === 'text/event-stream' && unreadableEvent.test(error.message)) {
      return `the model server${at} sent a stream event that is not what an OpenAI-compatible stream holds (${oneLine(error.message.replace(/^the model stream broke: /, ''), 160)}). Its streaming is broken, or it speaks another API: check the model's provider and URL (\`toolbus config\` shows them).`;
    }
    if (observation.mediaType === 'text/event-stream') {
      const closed = error.connectionClosed ?? error.message.replace(/^the model stream broke: /, '');
      return `the connection to the model${at} dropped in the middle of the answer (${closed}). Try again; if it keeps happening, the server may be running out of memory or restarting.`;
    }
  }
  if (ModelStallError.isInstance(error) && error.phase === 'first-chunk') {
    return `the model server sent nothing within ${Math.round(error.timeoutMs / 1000)} s, even after retries${at}. It may be loading a large model (try again, or raise --model-timeout), or the address is not an LLM server.`;
  }
  if (ModelStallError.isInstance(error)) {
    return `the model stopped sending in the middle of the answer (${error.message}). Try again.`;
  }
  if (ModelUnavailableError.isInstance(error)) return error.message;
  return error.message;
}
