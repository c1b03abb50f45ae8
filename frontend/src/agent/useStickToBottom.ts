// A conversation's scroller keeps the newest output in view unless the
// user scrolled up, in the document chat and on the Ask page alike.

import { useCallback, useEffect, useRef, type UIEvent } from "react";

/**
 * The scroller's ref and scroll handler, following content to the bottom
 * whenever it changes while the user is near the bottom; follow() starts
 * following again (a new turn).
 */
export function useStickToBottom(content: unknown) {
  const ref = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  useEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [content]);
  const onScroll = useCallback((e: UIEvent<HTMLElement>) => {
    const el = e.currentTarget;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  }, []);
  const follow = useCallback(() => {
    stick.current = true;
  }, []);
  return { ref, onScroll, follow };
}
