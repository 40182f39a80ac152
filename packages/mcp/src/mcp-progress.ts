/** One `notifications/progress` of a running MCP tool call, as the server sent it. */
export interface McpProgress {
  readonly progress: number;
  readonly total?: number | undefined;
  readonly message?: string | undefined;
}

/** Receives a running call's progress notifications (each also extends the call's timeout). */
export type McpProgressListener = (progress: McpProgress) => void;

/** Longest server-written progress message shown (the server is untrusted; a line is not a document). */
const maxMessageChars = 200;

/**
 * The one line a progress notification becomes in the CLI's tool line and the web UI's tool tab: "3/10 (30%) ·
 * message", "42 · message" when the server gives no total. Control characters are flattened: the line is drawn
 * on a terminal.
 */
export function describeMcpProgress(progress: McpProgress): string {
  const amount = Number.isFinite(progress.progress) ? progress.progress : 0;
  const total = progress.total;
  const counted =
    total !== undefined && Number.isFinite(total) && total > 0
      ? `${formatNumber(amount)}/${formatNumber(total)} (${Math.min(100, Math.max(0, Math.round((amount / total) * 100)))}%)`
      : formatNumber(amount);
  const message = (progress.message ?? '').replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  if (message === '') return counted;
  return `${counted} · ${message.length > maxMessageChars ? `${message.slice(0, maxMessageChars)}…` : message}`;
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, '');
}
