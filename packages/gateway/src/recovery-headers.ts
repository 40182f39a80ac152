import type { IncomingMessage } from 'node:http';
import { omitUndefined } from '@toolbus/spec';
import type { RecoveryReport } from './chat-completion-repair.ts';

// What the gateway tells a client and its log of what recovery did, the same for both routes: response headers
// (trailers on a stream, whose head goes out before recovery is known) and a request's log fields.

/** Response headers that say what recovery did (a trailer on streams, whose head is sent before it is known). */
export const RECOVERY_HEADER = 'x-toolbus-recovery';
export const RECOVERY_REASON_HEADER = 'x-toolbus-recovery-reason';

/** The trailers a stream declares in its head. */
export const RECOVERY_TRAILERS = `${RECOVERY_HEADER}, ${RECOVERY_REASON_HEADER}`;

/**
 * Whether the client can be sent trailers: an HTTP/1.1 client reads a chunked body; an HTTP/1.0 client's answer is
 * the bytes until the connection closes, where `node:http` refuses trailers (and the answer was lost with them).
 */
export function takesTrailers(request: IncomingMessage): boolean {
  return request.httpVersionMajor > 1 || (request.httpVersionMajor === 1 && request.httpVersionMinor >= 1);
}

/**
 * The recovery headers for a report: `recovered` with a count (and the calls dropped, and the answers the token
 * limit cut inside a call: `truncated=N`), `truncated` or `failed` with the reason, or `none`.
 */
export function recoveryHeaders(report: RecoveryReport): Record<string, string> {
  if (report.recovered > 0)
    return {
      [RECOVERY_HEADER]: `recovered; calls=${report.recovered}${report.dropped > 0 ? `; dropped=${report.dropped}` : ''}${report.truncated > 0 ? `; truncated=${report.truncated}` : ''}`,
    };
  const outcome = recoveryOutcome(report);
  if (outcome !== undefined && report.unreadable !== undefined)
    return { [RECOVERY_HEADER]: outcome, [RECOVERY_REASON_HEADER]: headerSafe(report.unreadable) };
  return { [RECOVERY_HEADER]: 'none' };
}

/**
 * What a request's log line says of recovery, in both routes: the calls made, how it ended when it made none, and
 * the calls the token limit cut (left out) beside those it made.
 */
export function recoveryLogFields(report: RecoveryReport | undefined): Record<string, number | string> {
  return {
    recovered: report?.recovered ?? 0,
    ...omitUndefined({ recovery: recoveryOutcome(report) }),
    ...(report !== undefined && report.truncated > 0 ? { truncated: report.truncated } : {}),
  };
}

/**
 * How recovery ended when it made no call, for the header and the log: `truncated` (the token limit cut the call
 * the model was writing), `failed` (markup no call could be read from), or undefined (nothing to recover).
 */
export function recoveryOutcome(report: RecoveryReport | undefined): 'failed' | 'truncated' | undefined {
  if (report === undefined || report.recovered > 0 || report.unreadable === undefined) return undefined;
  return report.truncated > 0 ? 'truncated' : 'failed';
}

function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, ' ').slice(0, 300);
}
