import type { IncomingMessage } from 'node:http';
import {
  codeInterpreterEgressTagHeader,
  codeInterpreterEgressTokenHeader,
  codeInterpreterUserHeader,
} from '@toolbus/spec';
import { HttpError } from './http-error.ts';

/** The user a request acts for (its `x-toolbus-user` header), or undefined; 400 for a malformed value. */
export function requestOwner(request: IncomingMessage): string | undefined {
  const value = request.headers[codeInterpreterUserHeader];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(value)) {
    throw new HttpError({
      status: 400,
      code: 'invalid_request',
      message: `${codeInterpreterUserHeader} must be 1 to 200 visible ASCII characters`,
    });
  }
  return value;
}

/** What a run is for (its `x-toolbus-egress-tag` header), or undefined; 400 for a malformed value. */
export function requestEgressTag(request: IncomingMessage): string | undefined {
  const value = request.headers[codeInterpreterEgressTagHeader];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(value)) {
    throw new HttpError({
      status: 400,
      code: 'invalid_request',
      message: `${codeInterpreterEgressTagHeader} must be 1 to 200 visible ASCII characters`,
    });
  }
  return value;
}

/**
 * The run's signed egress token (its `x-toolbus-egress-token` header), or undefined; 400 for a malformed value.
 * Only its shape is checked here: the proxy verifies it. The error names the header, never echoes the value.
 */
export function requestEgressToken(request: IncomingMessage): string | undefined {
  const value = request.headers[codeInterpreterEgressTokenHeader];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[\x21-\x7e]{1,2048}$/.test(value)) {
    throw new HttpError({
      status: 400,
      code: 'invalid_request',
      message: `${codeInterpreterEgressTokenHeader} must be 1 to 2048 visible ASCII characters`,
    });
  }
  return value;
}
