import type { ChatMessage, CitedDocument, Packet } from '@toolbus/spec';
import * as z from 'zod';
import type { ResearchAgentOutcome } from './run-orchestrator.ts';

/**
 * Where a Deep Research run stands after its plan and after each orchestrator cycle: enough to go on from there
 * in another process. Plain JSON (store it as it is); the packets emitted so far are not in it, the caller keeps
 * those (a server stores every packet of a turn anyway).
 */
export interface DeepResearchCheckpoint {
  readonly version: 1;
  /** The conversation the run reads: the recent user messages, clarification answers included. */
  readonly context: readonly ChatMessage[];
  /** The question the report answers. */
  readonly question: string;
  readonly plan: string;
  /** The date the prompts carry. */
  readonly date: string;
  /** Run time spent until this checkpoint: the force-report timer goes on from there. */
  readonly elapsedMs: number;
  /** The next top-level placement turn. */
  readonly turn: number;
  /** Orchestrator cycles completed (0 right after the plan). */
  readonly cycles: number;
  /** The orchestrator is done: what is left is the report (and the citation check). */
  readonly researchDone: boolean;
  /** The orchestrator's conversation: its tool calls and one answer per call. */
  readonly history: readonly ChatMessage[];
  /** Every research agent of the completed cycles, in dispatch order. */
  readonly agents: readonly ResearchAgentOutcome[];
  /** The documents the agents' reports cite, one dense numbering (`citationNumber`) in dispatch order. */
  readonly documents: readonly CitedDocument[];
}

/** How to resume a run whose process died (see `RunDeepResearchOptions.resume`). */
export interface DeepResearchResume {
  /** The last checkpoint the run saved; without one (it died before its plan was written) it starts over. */
  readonly checkpoint?: DeepResearchCheckpoint;
  /**
   * The packets the interrupted run emitted (its stored stream), in order. They stand: what they left open is
   * closed, and the resumed run's packets follow them.
   */
  readonly packets: readonly Packet[];
}

const messageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
});
const documentSchema = z.looseObject({
  id: z.string(),
  title: z.string(),
  blurb: z.string(),
  content: z.string(),
  sourceType: z.string(),
  citationNumber: z.number().int().positive(),
});
const checkpointSchema = z.object({
  version: z.literal(1),
  context: z.array(messageSchema),
  question: z.string(),
  plan: z.string().min(1),
  date: z.string(),
  elapsedMs: z.number().nonnegative(),
  turn: z.number().int().nonnegative(),
  cycles: z.number().int().nonnegative(),
  researchDone: z.boolean(),
  history: z.array(messageSchema),
  agents: z.array(
    z.object({
      callId: z.string(),
      task: z.string(),
      status: z.enum(['completed', 'timed-out', 'failed', 'not-run']),
      report: z.string(),
    }),
  ),
  documents: z.array(documentSchema),
});

/**
 * A checkpoint read back from storage, checked against the shape this version writes; undefined when it is not
 * one (written by another version, or damaged): the run then starts over rather than resume from a guess.
 */
export function parseDeepResearchCheckpoint(value: unknown): DeepResearchCheckpoint | undefined {
  const parsed = checkpointSchema.safeParse(value);
  return parsed.success ? (parsed.data as unknown as DeepResearchCheckpoint) : undefined;
}
