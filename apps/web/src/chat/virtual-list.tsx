import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, useLayoutEffect, useRef, useState } from 'react';

/** Levels with more cycles than this draw only what is in view (and a few around it); shorter ones draw all. */
export const virtualFrom = 200;

/**
 * A long list in the page's own scroll (the window): only the items in view and a few either side are mounted,
 * with spacers of the measured (or estimated) height for the rest, so a turn of thousands of steps costs what a
 * screenful costs. Each mounted item is measured as it draws; an item that grows above the view keeps what the
 * reader looks at in place (the virtualiser moves the scroll by the difference).
 */
export function VirtualList(props: {
  readonly count: number;
  readonly keyOf: (index: number) => string | number;
  readonly render: (index: number) => ReactNode;
  readonly estimatePx: number;
  readonly className: string;
}) {
  const list = useRef<HTMLDivElement>(null);
  // Where the list starts in the document: the virtualiser works in window coordinates.
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    const top = (list.current?.getBoundingClientRect().top ?? 0) + window.scrollY;
    if (Math.abs(top - margin) > 1) setMargin(top);
  });
  const virtualizer = useWindowVirtualizer({
    count: props.count,
    estimateSize: () => props.estimatePx,
    overscan: 4,
    scrollMargin: margin,
    getItemKey: props.keyOf,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0];
  const last = items[items.length - 1];
  const before = first ? first.start - margin : 0;
  const after = virtualizer.getTotalSize() - (last ? last.end - margin : 0);
  return (
    <div ref={list} className={props.className} data-virtual-count={props.count} data-mounted={items.length}>
      <div className="virtual-spacer" aria-hidden="true" style={{ height: before }} />
      {items.map((item) => (
        <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} className="virtual-item">
          {props.render(item.index)}
        </div>
      ))}
      <div className="virtual-spacer" aria-hidden="true" style={{ height: Math.max(0, after) }} />
    </div>
  );
}
