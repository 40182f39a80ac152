/**
 * Where a library reports what it left out and why (a dropped header, a skipped tool). Fields carry names, ids and
 * reasons only, never secret values: callers log them as they are.
 */
export interface WarningLogger {
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** The default {@link WarningLogger}: `console.warn` with the fields as JSON. */
export const consoleWarningLogger: WarningLogger = {
  warn(message, fields) {
    console.warn(fields === undefined ? message : `${message} ${JSON.stringify(fields)}`);
  },
};
