/** A log field's value; undefined fields are written as `-` so every line of an event has the same fields. */
export type EgressLogValue = string | number | boolean | undefined;

/**
 * Receives one structured event (`egress_allow`, `egress_block`, ...) with its fields in a fixed order. Fields
 * never hold a header value, a query string or a secret: header names only, ids shortened.
 */
export type EgressLogger = (event: string, fields: ReadonlyArray<readonly [string, EgressLogValue]>) => void;

/** The first 8 characters of an id, for reading; full ids go in a separate field when needed for search. */
export function shortId(id: string | undefined): string | undefined {
  return id === undefined ? undefined : id.slice(0, 8);
}

function formatValue(value: EgressLogValue): string {
  if (value === undefined || value === '') return '-';
  const text = String(value);
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

/** One `event=name key=value ...` line; values with spaces or quotes are JSON-quoted. */
export function formatEgressLogLine(
  event: string,
  fields: ReadonlyArray<readonly [string, EgressLogValue]>,
): string {
  return [`event=${event}`, ...fields.map(([key, value]) => `${key}=${formatValue(value)}`)].join(' ');
}
