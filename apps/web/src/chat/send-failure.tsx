import { useEffect, useState } from 'react';

/** A send that failed for a passing reason: what happened, and when trying again makes sense (epoch ms). */
export interface FailedSend {
  readonly words: string;
  readonly retryAt: number;
}

/**
 * Under the composer after a send failed for a passing reason (too many requests, the server briefly down, the
 * network lost): what happened in words, that the message is kept, and a Retry button that waits out the server's
 * `Retry-After` (counting down) before it can be pressed. A send is never repeated by itself: the person decides.
 */
export function SendFailure(props: { readonly failure: FailedSend; readonly onRetry: () => void }) {
  const [now, setNow] = useState(() => Date.now());
  const { retryAt } = props.failure;
  useEffect(() => {
    setNow(Date.now());
    if (retryAt <= Date.now()) return;
    const timer = setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= retryAt) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
  }, [retryAt]);
  const left = Math.max(0, Math.ceil((retryAt - now) / 1000));
  return (
    <div className="send-failure" role="alert">
      <p>Your message was not sent. {props.failure.words} It is kept in the box, nothing is lost.</p>
      <button type="button" disabled={left > 0} onClick={props.onRetry}>
        {left > 0 ? `Retry in ${left} s` : 'Retry'}
      </button>
    </div>
  );
}
