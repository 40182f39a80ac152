import { ToolbusError } from '@toolbus/spec';

/** Why one page of an open_url call gave no text. */
export type OpenPageErrorCode =
  | 'invalid_url'
  | 'blocked'
  | 'timeout'
  | 'http_error'
  | 'host_not_found'
  | 'network_error'
  | 'too_large'
  | 'unsupported_type'
  | 'unreadable'
  | 'empty';

/** One page could not be opened. Its message is written for the model and names no secret (only the reason). */
export class OpenPageError extends ToolbusError<OpenPageErrorCode> {
  static override readonly errorName = 'OpenPageError';
}
