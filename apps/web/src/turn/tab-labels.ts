import type { TreeNode } from './turn-tree.ts';

/** The argument that tells two calls of one tool apart: the query, the URL, the task, the first line of code. */
const telling = ['query', 'queries', 'url', 'urls', 'task', 'path', 'file_name', 'code', 'command', 'prompt'];

function firstLine(value: unknown): string | undefined {
  const text = Array.isArray(value) ? value.find((item) => typeof item === 'string') : value;
  if (typeof text !== 'string') return undefined;
  const line = text
    .split('\n')
    .map((part) => part.trim())
    .find(Boolean);
  if (!line) return undefined;
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}

/** A short hint from a call's arguments (final ones, else those streamed so far, else its queries or URLs). */
export function argumentHint(node: TreeNode): string | undefined {
  const tool = node.tool;
  if (!tool) return undefined;
  const source: Record<string, unknown> = { ...tool.streamedArguments, ...(tool.arguments ?? {}) };
  for (const name of telling) {
    const hint = firstLine(source[name]);
    if (hint) return hint;
  }
  return firstLine(tool.queries[0]) ?? firstLine(tool.urls[0]) ?? firstLine(Object.values(source)[0]);
}

/**
 * Work nodes of one cycle in the order their calls started (their first packet), whatever tab number the runner
 * gave them, so a call that starts later is added at the end and never moves the others.
 */
export function inStartOrder(nodes: readonly TreeNode[]): TreeNode[] {
  return [...nodes].sort((a, b) => a.firstSequence - b.firstSequence || a.tab - b.tab);
}

/** What a node is called: its tool's display name, its agent's task, or its step. */
export function titleOf(node: TreeNode): string {
  if (node.agentTask !== undefined)
    return node.tool?.displayName ? `${node.tool.displayName}: ${node.agentTask}` : node.agentTask;
  if (node.coding) return `Coding agent: ${node.coding.query}`;
  if (node.tool) return node.tool.displayName || node.tool.toolName || 'Tool';
  if (node.approvals.length > 0) return 'Approval';
  return `Step ${node.turn + 1}`;
}

/** Each node's label; where two would read the same, each gets the argument that tells them apart. */
export function labelsOf(nodes: readonly TreeNode[]): string[] {
  const titles = nodes.map(titleOf);
  return titles.map((title, position) => {
    const node = nodes[position] as TreeNode;
    if (titles.filter((other) => other === title).length < 2) return title;
    const hint = argumentHint(node);
    return hint ? `${title}: ${hint}` : title;
  });
}
