import type {
  ApprovalResolution,
  CitationCheck,
  CitedDocument,
  ElicitationResolution,
  FileReference,
  PacketObject,
  Placement,
  ToolEndPacket,
} from '@toolbus/spec';
import type { ApprovalRequestPacket, ElicitationRequestPacket } from './ui-packet.ts';

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
  /** How run_python's code ended (its last `python-delta`): undefined until then. */
  exitCode: number | null | undefined;
  timedOut: boolean;
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
  elicitations: ElicitationRequestPacket[];
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
  /** How each MCP elicitation ended, by id. */
  readonly elicitationsResolved: Map<string, ElicitationResolution>;
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
    elicitationsResolved: new Map(),
    stopReason: undefined,
    packetCount: 0,
  };
}

/** Keeps the documents a packet numbered, the first of each citation number winning. */
export function rememberDocuments(tree: TurnTree, documents: readonly CitedDocument[] | undefined): void {
  for (const document of documents ?? []) {
    if (!tree.documents.has(document.citationNumber)) tree.documents.set(document.citationNumber, document);
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
    node.approvals.length > 0 ||
    node.elicitations.length > 0
  );
}

/** True while the node's work runs: started, no section end, no stop of the turn. */
export function isRunning(node: TreeNode, tree: TurnTree): boolean {
  return !node.ended && node.errors.length === 0 && tree.stopReason === undefined;
}
