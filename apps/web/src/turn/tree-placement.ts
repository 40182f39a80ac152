import type { Placement } from '@toolbus/spec';
import type { Cycle, Level, ToolState, TreeNode, TurnTree } from './turn-tree.ts';

// Where a packet lands in a turn tree: the node its placement names, made on the way with every level above it.

function newNode(key: string, turn: number, tab: number, depth: number, sequence: number): TreeNode {
  return {
    key,
    turn,
    tab,
    depth,
    version: 0,
    firstSequence: sequence,
    reasoning: '',
    reasoningDone: false,
    message: '',
    messageStarted: false,
    tool: undefined,
    plan: '',
    agentTask: undefined,
    report: '',
    reportDocuments: [],
    coding: undefined,
    bash: [],
    errors: [],
    approvals: [],
    elicitations: [],
    ended: false,
    children: { cycles: [] },
  };
}

function cycleOf(level: Level, turn: number): Cycle {
  const cycles = level.cycles;
  const last = cycles.at(-1);
  if (last?.turn === turn) return last;
  let index = cycles.length;
  while (index > 0 && (cycles[index - 1] as Cycle).turn > turn) index -= 1;
  const existing = cycles[index - 1];
  if (existing?.turn === turn) return existing;
  const cycle: Cycle = { turn, version: 0, branches: undefined, tabs: [] };
  cycles.splice(index, 0, cycle);
  return cycle;
}

function tabOf(cycle: Cycle, tab: number, keyPrefix: string, depth: number, sequence: number): TreeNode {
  const tabs = cycle.tabs;
  for (let index = tabs.length - 1; index >= 0; index -= 1) {
    const node = tabs[index] as TreeNode;
    if (node.tab === tab) return node;
    if (node.tab < tab) {
      const created = newNode(`${keyPrefix}${cycle.turn}.${tab}`, cycle.turn, tab, depth, sequence);
      tabs.splice(index + 1, 0, created);
      return created;
    }
  }
  const created = newNode(`${keyPrefix}${cycle.turn}.${tab}`, cycle.turn, tab, depth, sequence);
  tabs.unshift(created);
  return created;
}

/** The node a placement names, created on the way (every level of the path is a cycle and a tab below). */
export function nodeAt(
  tree: TurnTree,
  placement: Placement,
  sequence: number,
  touched: (Cycle | TreeNode)[],
): TreeNode {
  let cycle = cycleOf(tree.root, placement.turn);
  let node = tabOf(cycle, placement.tab, '', 0, sequence);
  touched.push(cycle, node);
  let depth = 0;
  for (const level of placement.path ?? []) {
    depth += 1;
    cycle = cycleOf(node.children, level.turn);
    node = tabOf(cycle, level.tab, `${node.key}/`, depth, sequence);
    touched.push(cycle, node);
  }
  return node;
}

/** The tool call a node shows, created with empty state on its first packet. */
export function toolOf(node: TreeNode, toolCallId: string, toolName: string): ToolState {
  node.tool ??= {
    toolCallId,
    toolName,
    displayName: toolName,
    arguments: undefined,
    streamedArguments: {},
    progress: [],
    queries: [],
    documents: [],
    urls: [],
    fileReads: [],
    images: [],
    stdout: '',
    stderr: '',
    exitCode: undefined,
    timedOut: false,
    files: [],
    results: [],
    memories: [],
    end: undefined,
  };
  return node.tool;
}
