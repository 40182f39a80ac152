import { z } from 'zod';

/** Path parameters of deciding one egress approval. */
export const approvalParams = z.object({ approvalId: z.string().min(1).max(100) });

/** The chat owner's decision on an egress approval. */
export const approvalDecisionBody = z.object({
  decision: z
    .enum(['approve', 'reject', 'allow-session'])
    .describe('allow-session also approves every later identical action in this chat'),
});

/** A decided approval. */
export const approvalResolutionSchema = z.object({
  approvalId: z.string(),
  resolution: z.enum(['approved', 'approved_for_session', 'rejected']),
});
