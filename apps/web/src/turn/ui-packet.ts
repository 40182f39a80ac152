import type { PacketObject } from '@toolbus/spec';

/** The verdict on one (sentence, citation) pair of a research report (as the research package sends it). */
export interface CitationCheck {
  readonly citationNumber: number;
  readonly documentId?: string;
  readonly sentence: string;
  readonly verdict: 'supported' | 'unsupported' | 'unverifiable';
  readonly method: 'lexical' | 'model' | 'none';
}

/** An egress approval request (a card: app or MCP server, actions, destination, payload preview, expiry). */
export type ApprovalRequestPacket = Extract<PacketObject, { readonly type: 'approval-request' }>;

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
export type UiPacketObject = PacketObject | MessageReplacePacket | CitationCheckPacket;
