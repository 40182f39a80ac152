import type { PacketObject } from '@toolbus/spec';

/**
 * An egress approval request (a card: app or MCP server, actions, destination, payload preview, expiry). Every
 * packet type the UI reads comes from `@toolbus/spec`: no local copy can drift from what the server sends.
 */
export type ApprovalRequestPacket = Extract<PacketObject, { readonly type: 'approval-request' }>;

/** An MCP server's question to the user (a card: the server's message, a form or a URL, expiry). */
export type ElicitationRequestPacket = Extract<PacketObject, { readonly type: 'elicitation-request' }>;
