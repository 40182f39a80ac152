import { z } from 'zod';
import type { RouteRegistry } from '../http/route-registry.ts';
import type { ApprovalHub } from './approval-hub.ts';

/** Registers `POST /v1/approvals/{approvalId}`: the chat owner's decision on an egress approval. */
export function registerApprovalRoutes(registry: RouteRegistry, approvals: ApprovalHub): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/approvals/{approvalId}',
      operationId: 'decideApproval',
      summary: 'Approve or reject a request sandboxed code wants to send (an approval-request packet)',
      tag: 'approvals',
      access: { kind: 'user', scope: 'chat' },
      params: z.object({ approvalId: z.string().min(1).max(100) }),
      body: z.object({
        decision: z
          .enum(['approve', 'reject', 'allow-session'])
          .describe('allow-session also approves every later identical action in this chat'),
      }),
      responses: {
        200: {
          description: 'Decided',
          schema: z.object({
            approvalId: z.string(),
            resolution: z.enum(['approved', 'approved_for_session', 'rejected']),
          }),
        },
        404: { description: 'No approval of yours with this id is waiting' },
      },
    },
    async ({ principal, params, body, context }) =>
      context.json({
        approvalId: params.approvalId,
        resolution: await approvals.decide(principal.user.id, params.approvalId, body.decision),
      }),
  );
}
