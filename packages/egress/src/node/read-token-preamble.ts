import type { Socket } from 'node:net';
import { egressTokenPreamble } from '@toolbus/spec';
import { maxEgressRunTokenLength } from './egress-run-token.ts';

/** What a connection began with: a relay's token line, nothing of the kind, or a broken line. */
export type TokenPreamble =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'none' }
  | { readonly kind: 'malformed' };

const prefix = Buffer.from(egressTokenPreamble, 'latin1');
const maxLineBytes = prefix.length + maxEgressRunTokenLength + 2;

/**
 * Reads the relay's `TOOLBUS-EGRESS-TOKEN <token>\r\n` line off the start of a connection, if it begins with one,
 * and puts every byte after it back (`unshift`), so the HTTP parser sees the sandbox's bytes exactly as sent. A
 * connection that starts with anything else is left as it came (`none`): it is identified by its source address.
 * Resolves `malformed` for a line that is too long or the connection ending or idling (`timeoutMs`) mid-line.
 */
export function readTokenPreamble(socket: Socket, timeoutMs: number): Promise<TokenPreamble> {
  return new Promise((resolve) => {
    let buffered = Buffer.alloc(0);
    const finish = (result: TokenPreamble, rest: Buffer | undefined): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onEnd);
      socket.pause();
      if (rest !== undefined && rest.length > 0) socket.unshift(rest);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const compared = Math.min(buffered.length, prefix.length);
      if (!buffered.subarray(0, compared).equals(prefix.subarray(0, compared))) {
        finish({ kind: 'none' }, buffered);
        return;
      }
      const end = buffered.indexOf('\r\n', prefix.length);
      if (end === -1) {
        if (buffered.length > maxLineBytes) finish({ kind: 'malformed' }, undefined);
        return;
      }
      const token = buffered.subarray(prefix.length, end).toString('latin1');
      finish(token === '' ? { kind: 'malformed' } : { kind: 'token', token }, buffered.subarray(end + 2));
    };
    const onEnd = (): void => finish({ kind: 'malformed' }, undefined);
    const timer = setTimeout(() => finish({ kind: 'malformed' }, undefined), timeoutMs);
    timer.unref();
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onEnd);
    socket.resume();
  });
}
