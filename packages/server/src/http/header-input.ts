import { ServerError } from './server-error.ts';

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// A field value is visible ASCII, spaces, tabs and bytes above 0x7F (RFC 9110 §5.5): CR, LF, NUL and the other
// controls would split or end the header when the value is sent.
const illegalInValue = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * Refuses, at the door, header names that are not tokens and header values (templates, or values filled into
 * them) holding bytes a header value cannot carry: a CR/LF stored now would only fail, or inject a header, when
 * used. The error names the field (`body.headers.Authorization`), never the value.
 */
export function checkHeaderInput(
  values: Readonly<Record<string, string>> | undefined,
  field: string,
  options: { readonly names?: boolean } = {},
): void {
  for (const [name, value] of Object.entries(values ?? {})) {
    if (options.names !== false && !headerName.test(name)) {
      throw new ServerError({
        code: 'invalid_request',
        field,
        message: `${field}: ${JSON.stringify(name.slice(0, 100))} is not a header name.`,
      });
    }
    checkHeaderValue(value, `${field}.${name}`);
  }
}

/** Refuses one value that will go into a header (see {@link checkHeaderInput}). */
export function checkHeaderValue(value: string | undefined, field: string): void {
  if (value !== undefined && illegalInValue.test(value)) {
    throw new ServerError({
      code: 'invalid_request',
      field,
      message: `${field}: a header value cannot hold CR, LF, NUL or other control characters.`,
    });
  }
}
