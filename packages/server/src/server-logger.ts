/**
 * Structured logs of the server: one event name and fields. Fields are ids, counts, statuses and error codes,
 * never header values, keys, tokens, message text or tool arguments.
 */
export interface ServerLogger {
  info(event: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(event: string, fields?: Readonly<Record<string, unknown>>): void;
  error(event: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** A logger that writes one JSON object per line to `write` (stderr by default). */
export function createJsonLogger(
  write: (line: string) => void = (line) => process.stderr.write(line),
): ServerLogger {
  const log =
    (level: string) =>
    (event: string, fields: Readonly<Record<string, unknown>> = {}) =>
      write(`${JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })}\n`);
  return { info: log('info'), warn: log('warn'), error: log('error') };
}

/** A logger that drops everything. */
export const silentLogger: ServerLogger = { info() {}, warn() {}, error() {} };
