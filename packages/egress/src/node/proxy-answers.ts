import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { EgressBlockBody } from '../decision/egress-block.ts';
import type { EgressRunTokenRefusal } from './egress-run-token.ts';

/** The headers of every answer the proxy writes itself (a block, a refusal). */
export const blockHeaders = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/** A whole HTTP response with a JSON body, for a socket the HTTP server does not own (CONNECT, token line). */
export function rawResponse(status: number, body: EgressBlockBody | Record<string, string>): string {
  const text = JSON.stringify(body);
  const challenge = status === 407 ? 'Proxy-Authenticate: Toolbus-Egress-Token\r\n' : '';
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\n${challenge}Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

/** The 407 body of a refused token: says what happened, never the token. */
export function tokenRefusalBody(reason: EgressRunTokenRefusal): Record<string, string> {
  return {
    error: 'egress_token_refused',
    reason,
    message:
      reason === 'expired'
        ? "This run's egress identity expired, so the proxy refuses its traffic. Retrying in this run will not help; run the code again."
        : "This run's egress identity could not be verified, so the proxy refuses its traffic. Do not retry.",
  };
}

/** Answers with a JSON block; a response already under way is cut off instead (its status is sent). */
export function sendBlock(
  response: ServerResponse,
  status: number,
  body: EgressBlockBody | Record<string, string>,
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, blockHeaders);
  response.end(JSON.stringify(body));
}
