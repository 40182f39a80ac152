import { useEffect, useState, useSyncExternalStore } from 'react';
import { currentRetryNotice, subscribeRetryNotices } from './retry-notices.ts';

/**
 * One line at the top of the page while a read waits to try again ("Too many requests: … Trying again in 3 s."),
 * counting down; it goes away by itself when the read succeeds.
 */
export function RetryBanner() {
  const notice = useSyncExternalStore(subscribeRetryNotices, currentRetryNotice);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!notice) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [notice]);
  if (!notice) return null;
  const left = Math.max(0, Math.ceil((notice.retryAt - now) / 1000));
  return (
    <p role="status" className="retry-banner">
      {notice.words} {left > 0 ? `Trying again in ${left} s…` : 'Trying again…'}
    </p>
  );
}
