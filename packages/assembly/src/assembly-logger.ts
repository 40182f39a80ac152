/** Where assembly reports what it left out and why. Only names and reasons are passed, never secret values. */
export interface AssemblyLogger {
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
}
