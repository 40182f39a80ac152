import type { ApprovalResolution } from '@toolbus/spec';
import { useState } from 'react';
import { client, messageOf } from '../common/api.ts';
import { Feedback } from '../common/feedback.tsx';
import type { ApprovalRequestPacket } from '../turn/ui-packet.ts';

type Choice = 'approve' | 'reject' | 'allow-session';

const resolutionText: Readonly<Record<ApprovalResolution, string>> = {
  approved: 'Approved',
  approved_for_session: 'Allowed for this chat',
  rejected: 'Rejected',
  expired: 'Expired: nobody decided in time',
};

const resolutionOf: Readonly<Record<Choice, ApprovalResolution>> = {
  approve: 'approved',
  reject: 'rejected',
  'allow-session': 'approved_for_session',
};

/** Action types as people read them: `app.create_issue` → `create_issue`. */
function actionNames(actions: readonly string[]): string {
  return actions.map((action) => action.replace(/^(?:app|mcp)\./, '')).join(', ');
}

/**
 * An egress request waiting for the user: which app (or MCP server), which action, where, what would be sent,
 * until when. The decision goes to `POST /v1/approvals/{id}` (the sandboxed code waits on it); the card shows the
 * outcome from the stream's `approval-resolved`, or the server's refusal, in place.
 */
export function ApprovalCard(props: {
  readonly request: ApprovalRequestPacket;
  readonly decided: ApprovalResolution | undefined;
}) {
  const [sent, setSent] = useState<ApprovalResolution | undefined>();
  const [error, setError] = useState<string | undefined>();
  const decided = props.decided ?? sent;
  const { request } = props;
  const decide = async (choice: Choice) => {
    setError(undefined);
    try {
      await client.request('POST', `/v1/approvals/${encodeURIComponent(request.approvalId)}`, {
        body: { decision: choice },
      });
      setSent(resolutionOf[choice]);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const titleId = `approval-${request.approvalId}`;
  const kind = request.subject.kind === 'mcp' ? 'MCP server' : 'app';
  return (
    <section className="approval" aria-labelledby={titleId}>
      <h4 id={titleId}>
        Allow {request.subject.name}: {actionNames(request.actions) || request.method}?
      </h4>
      <dl className="approval-facts">
        <dt>{kind === 'app' ? 'App' : 'MCP server'}</dt>
        <dd>{request.subject.name}</dd>
        <dt>Request</dt>
        <dd>
          <code>
            {request.method} {request.url}
          </code>
        </dd>
        <dt>Waits until</dt>
        <dd>
          <time dateTime={request.expiresAt}>{new Date(request.expiresAt).toLocaleTimeString()}</time>
        </dd>
      </dl>
      {request.payloadPreview === undefined ? null : (
        <figure>
          <figcaption>What would be sent</figcaption>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
          <pre tabIndex={0}>{request.payloadPreview}</pre>
        </figure>
      )}
      {decided ? (
        <p role="status">{resolutionText[decided]}</p>
      ) : (
        <div className="approval-actions">
          <button type="button" onClick={() => void decide('approve')}>
            Approve
          </button>
          <button type="button" onClick={() => void decide('reject')}>
            Reject
          </button>
          <button type="button" onClick={() => void decide('allow-session')}>
            Allow for this chat
          </button>
        </div>
      )}
      <Feedback error={error} />
    </section>
  );
}
