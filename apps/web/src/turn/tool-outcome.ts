import type { TreeNode } from './turn-tree.ts';

/** Why a node's work failed, in words for its badge and its cause line; undefined while it has not failed. */
export interface Failure {
  /** Short, for the badge: "failed", "failed · exit 1", "timed out". */
  readonly label: string;
  /** The cause a person reads: the error's message, or the last line the code wrote to stderr. */
  readonly cause: string;
}

const failedStatuses = new Set([
  'call-error',
  'execution-error',
  'unexpected-error',
  'timeout',
  'unknown-tool',
]);

function lastLine(text: string): string {
  return (
    text
      .trimEnd()
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .at(-1) ?? ''
  );
}

/**
 * The one judgement of whether a node failed, used by every place that shows a status (tab, lane, title): an error
 * packet, a failed `tool-end`, or code that exited non-zero or timed out (run_python reports success to the model
 * with the traceback, but for a person the run failed).
 */
export function failureOf(node: TreeNode): Failure | undefined {
  const tool = node.tool;
  if (tool?.timedOut)
    return { label: 'timed out', cause: 'The code did not finish in time and was stopped.' };
  if (typeof tool?.exitCode === 'number' && tool.exitCode !== 0) {
    return {
      label: `failed · exit ${tool.exitCode}`,
      cause: lastLine(tool.stderr) || `The code exited with status ${tool.exitCode}.`,
    };
  }
  const error = node.errors[0];
  if (error) return { label: 'failed', cause: error.message };
  if (tool?.end && failedStatuses.has(tool.end.status)) {
    return {
      label: tool.end.status === 'timeout' ? 'timed out' : 'failed',
      cause: tool.end.error?.message ?? '',
    };
  }
  return undefined;
}
