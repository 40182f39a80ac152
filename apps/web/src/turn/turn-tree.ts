import type {
  ApprovalResolution,
  CitationCheck,
  CitedDocument,
  FileReference,
  PacketObject,
  Placement,
  ToolEndPacket,
} from '@toolbus/spec';
import { nextMessageText } from '@toolbus/spec';
import type { ApprovalRequestPacket } from './ui-packet.ts';

/** A packet as the UI folds it: where it belongs, what it says, its sequence in the turn. */
export interface UiPacket {
  readonly sequence: number;
  readonly placement: Placement;
  readonly obj: PacketObject;
}

/** One command of a coding agent's timeline. */
export interface BashStep {
  command: string;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  done: boolean;
}

/** What one tool call showed: its arguments as they streamed, its progress and its results. */
export interface ToolState {
  toolCallId: string;
  toolName: string;
  displayName: string;
  arguments: Record<string, unknown> | undefined;
  /** String arguments as the model writes them (run_python's `code`). */
  streamedArguments: Record<string, string>;
  progress: string[];
  queries: string[];
  documents: CitedDocument[];
  urls: string[];
  fileReads: { fileName: string; startChar: number; endChar: number; totalChars: number }[];
  images: (FileReference & { revisedPrompt?: string })[];
  stdout: string;
  stderr: string;
  files: FileReference[];
  results: { responseType: string; data: unknown; files: readonly FileReference[] }[];
  memories: { operation: string; text: string }[];
  /** How the call ended (its `tool-end` packet): status, what the model read or the failure, duration. */
  end: Omit<ToolEndPacket, 'type' | 'toolCallId' | 'toolName'> | undefined;
}

/**
 * One place in the turn's timeline: a (turn, tab) at some depth. It may hold reasoning, answer text, a tool call,
 * a sub-agent's work, errors, and below it (`children`) the levels the placement path nests under it. Mutable and
 * versioned: a change bumps `version` here and in every ancestor, so a view redraws only what changed.
 */
export interface TreeNode {
  readonly key: string;
  readonly turn: number;
  readonly tab: number;
  readonly depth: number;
  version: number;
  firstSequence: number;
  reasoning: string;
  reasoningDone: boolean;
  message: string;
  messageStarted: boolean;
  tool: ToolState | undefined;
  plan: string;
  agentTask: string | undefined;
  report: string;
  reportDocuments: CitedDocument[];
  coding: { query: string; repository?: string; answer?: string } | undefined;
  bash: BashStep[];
  errors: { code: string; message: string }[];
  approvals: ApprovalRequestPacket[];
  ended: boolean;
  children: Level;
}

/** One cycle of a level: its parallel tabs, in tab order. */
export interface Cycle {
  readonly turn: number;
  version: number;
  branches: number | undefined;
  readonly tabs: TreeNode[];
}

/** The cycles of one loop (the turn's own, or a sub-agent's), in turn order. */
export interface Level {
  readonly cycles: Cycle[];
}

/** A whole turn as folded so far. */
export interface TurnTree {
  version: number;
  lastSequence: number;
  readonly root: Level;
  /** Every document the turn numbered, by citation number. */
  readonly documents: Map<number, CitedDocument>;
  /** Citation numbers the answer cited (in order of first citation). */
  readonly cited: number[];
  checks: CitationCheck[];
  readonly decisions: Map<string, ApprovalResolution>;
  stopReason: string | undefined;
  packetCount: number;
}

/** An empty turn. */
export function createTurnTree(): TurnTree {
  return {
    version: 0,
    lastSequence: 0,
    root: { cycles: [] },
    documents: new Map(),
    cited: [],
    checks: [],
    decisions: new Map(),
    stopReason: undefined,
    packetCount: 0,
  };
}

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
function nodeAt(
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

function toolOf(node: TreeNode, toolCallId: string, toolName: string): ToolState {
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
    files: [],
    results: [],
    memories: [],
    end: undefined,
  };
  return node.tool;
}

function remember(tree: TurnTree, documents: readonly CitedDocument[] | undefined): void {
  for (const document of documents ?? []) {
    if (!tree.documents.has(document.citationNumber)) tree.documents.set(document.citationNumber, document);
  }
}

/**
 * Folds one packet into the tree. Packets at or before the last folded sequence are ignored, so a replay after a
 * reconnect never doubles anything. Nesting comes from the placement path alone: any depth, any tool.
 */
export function applyPacket(tree: TurnTree, packet: UiPacket): void {
  if (packet.sequence <= tree.lastSequence) return;
  tree.lastSequence = packet.sequence;
  tree.packetCount += 1;
  tree.version += 1;
  const obj = packet.obj;
  // Turn-wide packets: no node of their own.
  switch (obj.type) {
    case 'heartbeat':
      return;
    case 'stop':
      tree.stopReason = obj.reason;
      return;
    case 'citation-info':
      if (!tree.cited.includes(obj.citationNumber)) tree.cited.push(obj.citationNumber);
      return;
    case 'citation-check':
      tree.checks = [...tree.checks, ...obj.checks];
      return;
    case 'approval-resolved':
      tree.decisions.set(obj.approvalId, obj.resolution);
      return;
  }
  const touched: (Cycle | TreeNode)[] = [];
  const node = nodeAt(tree, packet.placement, packet.sequence, touched);
  for (const item of touched) item.version = tree.version;
  switch (obj.type) {
    case 'section-end':
      node.ended = true;
      for (const step of node.bash) step.done = true;
      break;
    case 'top-level-branching': {
      const cycle = touched.at(-2) as Cycle;
      cycle.branches = obj.branches;
      break;
    }
    case 'error':
      node.errors.push({ code: obj.code, message: obj.message });
      break;
    case 'reasoning-start':
      break;
    case 'reasoning-delta':
      node.reasoning += obj.reasoning;
      break;
    case 'reasoning-end':
      node.reasoningDone = true;
      break;
    case 'message-start':
      node.messageStarted = true;
      remember(tree, obj.finalDocuments);
      break;
    case 'message-delta':
    case 'message-replace':
      node.messageStarted = true;
      node.message = nextMessageText(node.message, obj) ?? node.message;
      break;
    case 'tool-start': {
      const tool = toolOf(node, obj.toolCallId, obj.toolName);
      tool.displayName = obj.displayName;
      if (obj.arguments) tool.arguments = { ...obj.arguments };
      break;
    }
    case 'tool-argument-delta': {
      const tool = toolOf(node, obj.toolCallId, obj.toolName);
      for (const [name, text] of Object.entries(obj.argumentDeltas)) {
        tool.streamedArguments[name] = (tool.streamedArguments[name] ?? '') + text;
      }
      break;
    }
    case 'tool-progress':
      toolOf(node, obj.toolCallId, '').progress.push(obj.message);
      break;
    case 'tool-end': {
      // The runner's word on how the call ended, also for a call that never started (an unknown tool, one over
      // the cap, one merged into another): it ends the node, and a failure shows where the call is, once.
      const { type: _type, toolCallId: _id, toolName: _name, ...end } = obj;
      toolOf(node, obj.toolCallId, obj.toolName).end = end;
      node.ended = true;
      if (obj.error && !node.errors.some((error) => error.message === obj.error?.message))
        node.errors.push({ code: obj.error.code, message: obj.error.message });
      break;
    }
    case 'search-queries':
      toolOf(node, obj.toolCallId, '').queries.push(...obj.queries);
      break;
    case 'search-documents':
      toolOf(node, obj.toolCallId, '').documents.push(...obj.documents);
      remember(tree, obj.documents);
      break;
    case 'open-url-urls':
      toolOf(node, obj.toolCallId, '').urls.push(...obj.urls);
      break;
    case 'file-reader-result':
      toolOf(node, obj.toolCallId, '').fileReads.push({
        fileName: obj.fileName,
        startChar: obj.startChar,
        endChar: obj.endChar,
        totalChars: obj.totalChars,
      });
      break;
    case 'image-generation-heartbeat':
      toolOf(node, obj.toolCallId, '');
      break;
    case 'image-generation-final':
      toolOf(node, obj.toolCallId, '').images.push(...obj.images);
      break;
    case 'python-delta': {
      const tool = toolOf(node, obj.toolCallId, 'run_python');
      if (obj.stdout) tool.stdout += obj.stdout;
      if (obj.stderr) tool.stderr += obj.stderr;
      if (obj.files) tool.files.push(...obj.files);
      break;
    }
    case 'custom-tool-delta':
      toolOf(node, obj.toolCallId, obj.toolName).results.push({
        responseType: obj.responseType,
        data: obj.data,
        files: obj.files ?? [],
      });
      break;
    case 'memory-delta':
      toolOf(node, obj.toolCallId, '').memories.push({ operation: obj.operation, text: obj.text });
      break;
    case 'research-plan-start':
      break;
    case 'research-plan-delta':
      node.plan += obj.content;
      break;
    case 'research-agent-start':
      node.agentTask = obj.task;
      break;
    case 'intermediate-report-start':
      break;
    case 'intermediate-report-delta':
      node.report += obj.content;
      break;
    case 'intermediate-report-cited-documents':
      node.reportDocuments = [...obj.documents];
      remember(tree, obj.documents);
      break;
    case 'coding-agent-start':
      node.coding = { query: obj.query, ...(obj.repository ? { repository: obj.repository } : {}) };
      break;
    case 'coding-agent-final':
      node.coding = { ...(node.coding ?? { query: '' }), answer: obj.answer };
      break;
    case 'bash-start':
      node.bash.push({
        command: obj.command,
        stdout: '',
        stderr: '',
        exitCode: null,
        timedOut: false,
        done: false,
      });
      break;
    case 'bash-delta': {
      const step = node.bash.at(-1);
      if (step) {
        // Output comes in chunks while the command runs; the last packet carries the exit status.
        step.stdout += obj.stdout ?? '';
        step.stderr += obj.stderr ?? '';
        if (obj.exitCode !== undefined || obj.timedOut !== undefined) {
          step.exitCode = obj.exitCode ?? null;
          step.timedOut = obj.timedOut ?? false;
          step.done = true;
        }
      }
      break;
    }
    case 'approval-request':
      node.approvals.push(obj);
      break;
    default:
      // A packet type this UI does not know yet: ignored, so a newer server never breaks an older page.
      break;
  }
}

/** True when the node or anything below it is a tool call or a sub-agent (worth a tab of its own). */
export function isWorkNode(node: TreeNode): boolean {
  return (
    node.tool !== undefined ||
    node.agentTask !== undefined ||
    node.coding !== undefined ||
    node.bash.length > 0 ||
    node.children.cycles.length > 0 ||
    node.approvals.length > 0
  );
}

/** True while the node's work runs: started, no section end, no stop of the turn. */
export function isRunning(node: TreeNode, tree: TurnTree): boolean {
  return !node.ended && node.errors.length === 0 && tree.stopReason === undefined;
}
