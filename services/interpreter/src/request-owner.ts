import type { IncomingMessage } from 'node:http';
import {
  codeInterpreterEgressTagHeader,
  codeInterpreterEgressTokenHeader,
  codeInterpreterUserHeader,
} from '@toolbus/spec';
import { HttpError } from './http-error.ts';

/**
 * The value of `header`, or undefined when it is absent; 400 unless it is 1 to `maxLength` visible ASCII
 * characters. The error names the header, never echoes the value (one of them is a signed token).
 */
function visibleAsciiHeader(request: IncomingMessage, header: string, maxLength: number): string | undefined {
  const value = request.headers[header];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > maxLength || !/^[\x21-\x7e]+$/.test(value)) {
    throw new HttpError({
      status: 400,
      code: 'invalid_request',
      message: `${header} must be 1 to ${maxLength} visible ASCII characters`,
    });
  }
  return value;
}

/** The user a request acts for (its `x-toolbus-user` header), or undefined; 400 for a malformed value. */
export function requestOwner(request: IncomingMessage): string | undefined {
  return visibleAsciiHeader(request, codeInterpreterUserHeader, 200);
}

/** What a run is for (its `x-toolbus-egress-tag` header), or undefined; 400 for a malformed value. */
export function requestEgressTag(request: IncomingMessage): string | undefined {
  return visibleAsciiHeader(request, codeInterpreterEgressTagHeader, 200);
}

/**
 * The run's signed egress token (its `x-toolbus-egress-token` header), or undefined; 400 for a malformed value.
 * Only its shape is checked here: the proxy verifies it.
 */
export function requestEgressToken(request: IncomingMessage): string | undefined {
  return visibleAsciiHeader(request, codeInterpreterEgressTokenHeader, 2048);
}
