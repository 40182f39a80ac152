import type { PacketObject } from '@toolbus/spec';

/** The verdict on one (sentence, citation) pair of a research report (as the research package sends it). */
export interface CitationCheck {
  readonly citationNumber: number;
  readonly documentId?: string;
  readonly sentence: string;
  readonly verdict: 'supported' | 'unsupported' | 'unverifiable';
  readonly method: 'lexical' | 'model' | 'none';
}

/**
 * The egress approval request the UI renders as a card: a tool wants to send `payload` to `app` (`action`), and
 * the policy says ASK. The server has no approval packet or route yet; this is the shape the card is built
 * against (see docs/web-ui.md): the decision goes to `POST /v1/chats/{chatId}/approvals/{approvalId}` with
 * `{ "decision": "approve" | "reject" | "allow-session" }`.
 */
export interface ApprovalRequestPacket {
  readonly type: 'approval-request';
  readonly approvalId: string;
  readonly toolCallId?: string;
  readonly app: string;
  readonly action: string;
  readonly payload: unknown;
}

/** The verdict on an approval request, once decided (by anyone, in any tab). */
export interface ApprovalDecisionPacket {
  readonly type: 'approval-decision';
  readonly approvalId: string;
  readonly decision: 'approve' | 'reject' | 'allow-session';
}

/** The answer shown so far was really `content` (recovered tool-call text removed): replace, do not append. */
export interface MessageReplacePacket {
  readonly type: 'message-replace';
  readonly content: string;
}

/** The check of a report's citations: which sentences their sources do not support. */
export interface CitationCheckPacket {
  readonly type: 'citation-check';
  readonly checks: readonly CitationCheck[];
}

/** Every packet the UI understands: the spec's, and those other branches add (read by their documented shapes). */
export type UiPacketObject =
  | PacketObject
  | ApprovalRequestPacket
  | ApprovalDecisionPacket
  | MessageReplacePacket
  | CitationCheckPacket;
