// How a turn's end is written: its status and reason, the history it keeps, and the packets that close a stream
// whose writer cannot end it normally.
import type { ChatTurnResult } from '@toolbus/core';
import type { ChatMessage, Packet, Placement, StopReason } from '@toolbus/spec';
import { foldAnswer, placementKey } from '@toolbus/spec';
import type { ChatTurnStatus } from '@toolbus/storage';
import { SHUTDOWN_TURN_REASON } from './turn-reasons.ts';

/** A turn's end as the loop left it: how it ended, and why. */
export function endOf(
  result: ChatTurnResult | undefined,
  failure: unknown,
): { status: Exclude<ChatTurnStatus, 'running'>; reason?: string } {
  if (result === undefined) return { status: 'failed', reason: errorMessage(failure) };
  if (result.stopReason === 'user-cancelled') return { status: 'stopped', reason: 'user-cancelled' };
  if (result.error) return { status: 'failed', reason: result.error.message };
  return { status: 'completed', reason: result.stopReason };
}

/**
 * The assistant message a stopped or shut-down turn's history ends with when the loop's history has no answer
 * after its last tool results: the answer streamed so far (which the stream showed), and for a shut-down turn a
 * note saying it was interrupted, as a turn closed after a crash has. None when the loop wrote the answer.
 */
function stoppedAnswer(
  messages: readonly ChatMessage[],
  status: ChatTurnStatus,
  answerSoFar: string,
): ChatMessage[] {
  if (status !== 'stopped' && status !== 'interrupted') return [];
  const last = messages.at(-1);
  if (last?.role === 'assistant' && !last.toolCalls?.length) return [];
  const partial = answerSoFar.trim();
  if (status === 'stopped') return partial ? [{ role: 'assistant', content: partial }] : [];
  return [
    {
      role: 'assistant',
      content: `${partial ? `${partial}\n\n` : ''}[This answer was interrupted: ${SHUTDOWN_TURN_REASON}]`,
    },
  ];
}

/**
 * The loop's history with a stopped turn's end: the loop keeps the answer a stop cut off itself, and a shut-down
 * turn's note goes on that answer; {@link stoppedAnswer} covers a history that has none.
 */
export function closedHistory(
  messages: readonly ChatMessage[],
  status: ChatTurnStatus,
  answerSoFar: string,
): ChatMessage[] {
  const last = messages.at(-1);
  if (status === 'interrupted' && last?.role === 'assistant' && !last.toolCalls?.length) {
    const note = `[This answer was interrupted: ${SHUTDOWN_TURN_REASON}]`;
    return [
      ...messages.slice(0, -1),
      { ...last, content: last.content ? `${last.content}\n\n${note}` : note },
    ];
  }
  return [...messages, ...stoppedAnswer(messages, status, answerSoFar)];
}

/**
 * The packets that close an interrupted stream: per open tool an error, its `tool-end` (aborted, unless it had
 * one) and a section end; then `stop`, unless the packets have theirs already.
 */
export function closingPackets(
  packets: readonly Packet[],
  reason: string,
  stop: StopReason = 'interrupted',
): Packet[] {
  const open = new Map<
    string,
    { placement: Placement; toolCallId: string; toolName: string; ended: boolean }
  >();
  let lastTurn = 0;
  // A process can die after storing its turn's stop and before ending the turn: that turn has its one stop.
  let stopped = false;
  for (const packet of packets) {
    lastTurn = Math.max(lastTurn, packet.placement.turn);
    const { obj } = packet;
    if (obj.type === 'stop') stopped = true;
    const key = placementKey(packet.placement);
    if (obj.type === 'tool-start')
      open.set(key, {
        placement: packet.placement,
        toolCallId: obj.toolCallId,
        toolName: obj.toolName,
        ended: false,
      });
    const entry = open.get(key);
    if (obj.type === 'tool-end' && entry) entry.ended = true;
    if (obj.type === 'section-end') open.delete(key);
  }
  const closing: Packet[] = [];
  for (const { placement, toolCallId, toolName, ended } of open.values()) {
    const error = { code: 'turn_interrupted', message: `The tool call has no result: ${reason}` };
    closing.push({ placement, modelIndex: 0, obj: { type: 'error', ...error } });
    if (!ended) {
      closing.push({
        placement,
        modelIndex: 0,
        obj: { type: 'tool-end', toolCallId, toolName, status: 'aborted', error, durationMs: 0 },
      });
    }
    closing.push({ placement, modelIndex: 0, obj: { type: 'section-end' } });
  }
  if (!stopped)
    closing.push({
      placement: { turn: lastTurn, tab: 0 },
      modelIndex: 0,
      obj: { type: 'stop', reason: stop },
    });
  return closing;
}

/** What the turn had answered, as its readers saw it (retracted text gone): every top-level message. */
export function partialAnswer(packets: readonly Packet[]): string {
  return foldAnswer(packets)
    .messages.map((text) => text.trim())
    .filter((text) => text !== '')
    .join('\n\n');
}

export function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : 'internal_error';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The answer a turn closed before its end keeps: what it streamed at the top level, and why it stopped. */
export function interruptedAnswer(packets: readonly Packet[], reason: string): ChatMessage {
  const partial = partialAnswer(packets);
  return {
    role: 'assistant',
    content: `${partial ? `${partial}\n\n` : ''}[This answer was interrupted: ${reason}]`,
  };
}
