import type { CitationCheck } from './citation-check.ts';
import type { ElicitationResolution, ElicitationSchema } from './elicitation.ts';
import type { Placement } from './placement.ts';
import type { CitedDocument } from './search-document.ts';

/** Why a turn stopped. `interrupted`: the process running it died, and a later start closed the turn. */
export type StopReason =
  | 'finished'
  | 'stopping-tool'
  | 'cycle-limit'
  | 'user-cancelled'
  | 'error'
  | 'clarification'
  | 'interrupted';

/**
 * How an egress approval ended: `approved` (this request), `approved_for_session` (and every later identical action
 * of the same chat), `rejected`, or `expired` (nobody decided in time, or the turn ended first).
 */
export type ApprovalResolution = 'approved' | 'approved_for_session' | 'rejected' | 'expired';

/** What an approval is about, as an approval card names it. */
export interface ApprovalSubject {
  readonly kind: 'app' | 'mcp';
  readonly name: string;
}

/**
 * How one tool call ended: `success`; the model's own mistake (`call-error`: bad arguments, refused input); a
 * failure the tool reported (`execution-error`) or did not expect (`unexpected-error`); `timeout`; `aborted` with
 * the turn; not run (`unknown-tool`, `over-cap`); or `merged` into another call of the same tool, which carries its
 * input and its results.
 */
export type ToolCallStatus =
  | 'success'
  | 'call-error'
  | 'execution-error'
  | 'unexpected-error'
  | 'timeout'
  | 'aborted'
  | 'unknown-tool'
  | 'over-cap'
  | 'merged';

/** A file produced by a tool, by reference (the bytes live in the file store). */
export interface FileReference {
  readonly fileId: string;
  readonly name: string;
  readonly mediaType: string;
  readonly sizeBytes?: number;
}

/**
 * Everything that can appear in a turn's packet stream, discriminated by `type`. Names are noun-action with
 * start/delta/end. Tool-specific packets carry `toolCallId` so a UI can route them without guessing.
 */
export type PacketObject =
  // control
  | { readonly type: 'section-end' }
  | { readonly type: 'stop'; readonly reason: StopReason }
  | { readonly type: 'top-level-branching'; readonly branches: number }
  | { readonly type: 'error'; readonly code: string; readonly message: string; readonly retryable?: boolean }
  /**
   * How the turn offers its tools: `all` of them, or `search` (too many for the model: a tool-search tool that
   * loads what it finds into the next cycle). `total` tools exist; `offered` go into the first request.
   * `setAside`: tools the persona has that no provider would accept (an MCP tool whose input schema cannot be
   * normalised), by name and why; they are not among `total`.
   */
  | {
      readonly type: 'tool-mode';
      readonly mode: 'all' | 'search';
      readonly total: number;
      readonly offered: number;
      readonly setAside?: readonly { readonly name: string; readonly reason: string }[];
    }
  | { readonly type: 'heartbeat' }
  // reasoning and answer
  | { readonly type: 'reasoning-start' }
  | { readonly type: 'reasoning-delta'; readonly reasoning: string }
  | { readonly type: 'reasoning-end' }
  | { readonly type: 'message-start'; readonly finalDocuments?: readonly CitedDocument[] }
  | { readonly type: 'message-delta'; readonly content: string }
  /**
   * The answer at this placement is really `content`: text already shown turned out to hold tool calls (found
   * when the step ended), so a consumer replaces the message's text with this and redraws it.
   */
  | { readonly type: 'message-replace'; readonly content: string }
  | { readonly type: 'citation-info'; readonly citationNumber: number; readonly documentId: string }
  // every tool
  | {
      readonly type: 'tool-start';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly displayName: string;
      readonly arguments?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly type: 'tool-argument-delta';
      readonly toolCallId: string;
      readonly toolName: string;
      /** The tool's display name, so the call is labelled from its first packet (before its `tool-start`). */
      readonly displayName?: string;
      readonly argumentDeltas: Readonly<Record<string, string>>;
    }
  | {
      readonly type: 'tool-progress';
      readonly toolCallId: string;
      /** The line to show (for an MCP tool: "3/10 (30%) · message"). */
      readonly message: string;
      /** The amount done so far and of how much, when the tool reports numbers (MCP progress). */
      readonly progress?: number;
      readonly total?: number;
    }
  /**
   * How a call ended: exactly one per call id the model produced, at the call's placement (before its
   * `section-end`), whether it ran or not: a call of an unknown tool, one over the cap and one merged into another
   * get one too, without a `tool-start` before it. `result` is what the model read after a success (or, for
   * a merged call, where its results are); `error` is the failure's code and the message the model was given.
   * `durationMs` is the time from the call's start to its result (0 for a call that never ran).
   */
  | {
      readonly type: 'tool-end';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly status: ToolCallStatus;
      readonly result?: string;
      readonly error?: { readonly code: string; readonly message: string };
      /** The call that carried this one's input, when `status` is `merged`. */
      readonly mergedInto?: string;
      readonly durationMs: number;
    }
  // search, open_url, read_file
  | { readonly type: 'search-queries'; readonly toolCallId: string; readonly queries: readonly string[] }
  | {
      readonly type: 'search-documents';
      readonly toolCallId: string;
      readonly documents: readonly CitedDocument[];
    }
  | { readonly type: 'open-url-urls'; readonly toolCallId: string; readonly urls: readonly string[] }
  | {
      readonly type: 'file-reader-result';
      readonly toolCallId: string;
      readonly fileId: string;
      readonly fileName: string;
      readonly startChar: number;
      readonly endChar: number;
      readonly totalChars: number;
    }
  // image generation, python, custom/MCP tools, memory
  | { readonly type: 'image-generation-heartbeat'; readonly toolCallId: string }
  | {
      readonly type: 'image-generation-final';
      readonly toolCallId: string;
      readonly images: readonly (FileReference & { readonly revisedPrompt?: string })[];
    }
  | {
      readonly type: 'python-delta';
      readonly toolCallId: string;
      readonly stdout?: string;
      readonly stderr?: string;
      readonly files?: readonly FileReference[];
      /**
       * On the run's last delta: how the code ended (as `bash-delta` says it), so a viewer shows a raised
       * exception as a failure with its status, not as a finished call.
       */
      readonly exitCode?: number | null;
      readonly timedOut?: boolean;
    }
  | {
      readonly type: 'custom-tool-delta';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly responseType: 'json' | 'text' | 'csv' | 'image';
      readonly data: unknown;
      readonly files?: readonly FileReference[];
    }
  | {
      readonly type: 'memory-delta';
      readonly toolCallId: string;
      readonly operation: 'add' | 'update';
      readonly memoryId: string;
      readonly text: string;
    }
  // deep research and sub-agents
  | { readonly type: 'research-plan-start' }
  | { readonly type: 'research-plan-delta'; readonly content: string }
  | { readonly type: 'research-agent-start'; readonly task: string }
  | { readonly type: 'intermediate-report-start' }
  | { readonly type: 'intermediate-report-delta'; readonly content: string }
  | { readonly type: 'intermediate-report-cited-documents'; readonly documents: readonly CitedDocument[] }
  | { readonly type: 'citation-check'; readonly checks: readonly CitationCheck[] }
  | { readonly type: 'coding-agent-start'; readonly query: string; readonly repository?: string }
  | { readonly type: 'coding-agent-final'; readonly answer: string }
  | { readonly type: 'bash-start'; readonly command: string; readonly toolCallId?: string }
  /**
   * A bash command's output while it runs (`stdout`/`stderr` chunks), then one packet with `exitCode` (null when it
   * was killed) and `timedOut` when it ended.
   */
  // egress approvals
  /**
   * Code a tool runs (sandboxed `run_python`) wants to send a request whose policy is ASK; the run waits for the
   * chat's owner to decide with `POST /v1/approvals/{approvalId}` until `expiresAt` (ISO time). Placed at the tool
   * call that runs the code. Holds no credential and no query string; `payloadPreview` is the body, cut and with
   * secret-looking fields masked.
   */
  | {
      readonly type: 'approval-request';
      readonly approvalId: string;
      readonly toolCallId?: string;
      readonly subject: ApprovalSubject;
      /** The app actions or MCP tools needing approval (`create_issue`, `tools/call send_email`). */
      readonly actions: readonly string[];
      readonly method: string;
      /** Scheme, host and path. */
      readonly url: string;
      readonly payloadPreview?: string;
      readonly expiresAt: string;
    }
  | {
      readonly type: 'approval-resolved';
      readonly approvalId: string;
      readonly resolution: ApprovalResolution;
    }
  // MCP elicitation
  /**
   * A tool's MCP server asks the user something mid-call; the call waits for the chat's owner to answer with
   * `POST /v1/chats/{chatId}/elicitations/{elicitationId}` until `expiresAt` (ISO time), then the server gets
   * `cancel`. `form`: fill in `requestedSchema`; `url`: open `url` and consent. Message, schema and URL are the
   * server's words (untrusted). Placed at the tool call that asks.
   */
  | {
      readonly type: 'elicitation-request';
      readonly elicitationId: string;
      readonly toolCallId?: string;
      readonly serverName: string;
      readonly mode: 'form' | 'url';
      readonly message: string;
      readonly requestedSchema?: ElicitationSchema;
      readonly url?: string;
      readonly expiresAt: string;
    }
  | {
      readonly type: 'elicitation-resolved';
      readonly elicitationId: string;
      readonly resolution: ElicitationResolution;
    }
  | {
      readonly type: 'bash-delta';
      readonly toolCallId?: string;
      readonly stdout?: string;
      readonly stderr?: string;
      readonly exitCode?: number | null;
      readonly timedOut?: boolean;
    };

/** The packet that says how one tool call ended. */
export type ToolEndPacket = Extract<PacketObject, { readonly type: 'tool-end' }>;

/** The discriminator values of {@link PacketObject}. */
export type PacketType = PacketObject['type'];

/** One element of the stream: what happened (`obj`) and where it belongs (`placement`). */
export interface Packet {
  readonly placement: Placement;
  /** Stamped by the emitter: which model produced it (0 unless comparing models side by side). */
  readonly modelIndex: number;
  readonly obj: PacketObject;
}
