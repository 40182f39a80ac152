/** Where a CLI command reads and writes: the real process, or a test's buffers. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  readonly stderr: { write(text: string): unknown };
  readonly stdin?: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /**
   * Aborted when the reader of the output went away (EPIPE: `toolbus chat … | head -1`): a running turn stops as
   * Ctrl-C stops it. Absent when nothing watches the output (a test's buffers).
   */
  readonly outputClosed?: AbortSignal;
}
