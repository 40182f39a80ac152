/** Where a CLI command reads and writes: the real process, or a test's buffers. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  readonly stderr: { write(text: string): unknown };
  readonly stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}
