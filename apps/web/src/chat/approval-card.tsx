import { useState } from 'react';
import { client, messageOf } from '../common/api.ts';
import { Feedback } from '../common/feedback.tsx';
import type { ApprovalRequestPacket } from '../turn/ui-packet.ts';

type Decision = 'approve' | 'reject' | 'allow-session';

/**
 * An egress request waiting for the user: which app, which action, what would be sent. The decision goes to the
 * server (the turn waits on it); the card shows the outcome, or the server's refusal, in place.
 */
export function ApprovalCard(props: {
  readonly chatId: string;
  readonly request: ApprovalRequestPacket;
  readonly decided: string | undefined;
}) {
  const [sent, setSent] = useState<Decision | undefined>();
  const [error, setError] = useState<string | undefined>();
  const decided = props.decided ?? sent;
  const decide = async (decision: Decision) => {
    setError(undefined);
    try {
      await client.request(
        'POST',
        `/v1/chats/${encodeURIComponent(props.chatId)}/approvals/${encodeURIComponent(props.request.approvalId)}`,
        { body: { decision } },
      );
      setSent(decision);
    } catch (failure) {
      setError(messageOf(failure));
    }
  };
  const titleId = `approval-${props.request.approvalId}`;
  return (
    <section className="approval" aria-labelledby={titleId}>
      <h4 id={titleId}>
        Allow {props.request.app}: {props.request.action}?
      </h4>
      <figure>
        <figcaption>What would be sent</figcaption>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
        <pre tabIndex={0}>{JSON.stringify(props.request.payload, null, 2)}</pre>
      </figure>
      {decided ? (
        <p role="status">
          {decided === 'approve'
            ? 'Approved'
            : decided === 'reject'
              ? 'Rejected'
              : 'Allowed for this session'}
        </p>
      ) : (
        <div className="approval-actions">
          <button type="button" onClick={() => void decide('approve')}>
            Approve
          </button>
          <button type="button" onClick={() => void decide('reject')}>
            Reject
          </button>
          <button type="button" onClick={() => void decide('allow-session')}>
            Allow for this session
          </button>
        </div>
      )}
      <Feedback error={error} />
    </section>
  );
}
