import { resolveOrganization } from '../auth/organization-service.ts';
import type { Principal } from '../http/principal.ts';
import type { TurnDelivery, TurnJob } from '../scale-out/turn-queue.ts';
import type { ChatServiceDependencies } from './chat-service-dependencies.ts';
import type { LiveTurn } from './live-turn.ts';
import { prepareTurn } from './prepared-turn.ts';
import { runTurnHere } from './run-turn-here.ts';
import { WORKER_LOST_TURN_REASON } from './turn-runner.ts';

/**
 * Runs a queued turn on this worker replica. A chat turn delivered again (its first worker died mid-turn) is
 * closed with a stop packet and the reason instead of being run again: it may have run tools that are not safe
 * to repeat, and its history says it was interrupted. A research turn delivered again resumes from its last
 * checkpoint: its agents only search and read, so the cycle in progress runs again (docs/scale-out.md).
 */
export async function runQueuedTurn(
  deps: ChatServiceDependencies,
  queued: { readonly job: TurnJob; readonly delivery: TurnDelivery },
): Promise<void> {
  const { job, delivery } = queued;
  const record = await deps.storage.chats.getTurn({ chatId: job.chatId, turn: job.turn });
  if (record?.status !== 'running') {
    await deps.runner.releaseSlot(job.userId, job.slot);
    return;
  }
  const resume = delivery.redelivered && record.kind === 'research';
  const close = async (reason: string) => {
    await deps.runner.closeInterrupted(record, reason);
    await deps.runner.releaseSlot(job.userId, job.slot);
  };
  if (delivery.redelivered && !resume) return close(WORKER_LOST_TURN_REASON);
  const user = await deps.storage.users.get(job.userId);
  const chat = await deps.storage.chats.get(job.chatId);
  if (!user || !chat) return close('The chat or its user no longer exists.');
  let live: LiveTurn;
  try {
    // The worker acts as the user, in the organisation the chat belongs to (refused if they left it since).
    const organization = await resolveOrganization(deps.storage, user, chat.organizationId);
    const principal: Principal = { user, role: user.role, scopes: ['chat'], via: 'session', organization };
    const prepared = await prepareTurn(deps, { principal, chat, input: job.request });
    live = await runTurnHere(deps, {
      principal,
      chat,
      prepared,
      input: job.request,
      placement: {
        slot: job.slot,
        turn: job.turn,
        held: () => delivery.held(),
        ...(resume ? { resume: true } : {}),
      },
    });
  } catch (error) {
    return close(`The turn could not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  const lost = () => live.controller.abort();
  delivery.signal.addEventListener('abort', lost, { once: true });
  await live.ended;
  delivery.signal.removeEventListener('abort', lost);
  if (record.kind === 'research') {
    // Ended here: its checkpoint is no longer needed. Still running: another replica took it over and goes on.
    const now = await deps.storage.chats.getTurn({ chatId: job.chatId, turn: job.turn });
    if (now?.status !== 'running') {
      await deps.storage.researchCheckpoints.delete({ chatId: job.chatId, turn: job.turn });
    }
  }
}
