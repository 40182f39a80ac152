import { approvalDecisionBody, approvalParams, approvalResolutionSchema } from '@toolbus/api-schema';
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
      params: approvalParams,
      body: approvalDecisionBody,
      responses: {
        200: {
          description: 'Decided',
          schema: approvalResolutionSchema,
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
