import { useEffect, useState } from "react";
import { formatSeconds } from "../lib/format";
import type { RoundView } from "./reducer";

function seconds(ms: number): string {
  return formatSeconds(ms);
}

export function ThinkingBlock({ round }: { round: RoundView }) {
  const streaming = round.thinkingPhase === "streaming";
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!streaming) return;
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, [streaming]);
  if (round.thinkingPhase === "none" && !round.thinking) return null;
  if (streaming) {
    return (
      <div className="thinking streaming" data-testid="thinking-block" data-state="streaming">
        <div className="thinking-head">
          <span className="pulse" aria-hidden="true" /> Thinking… {round.thinkingStartedAt !== null && <span data-testid="thinking-elapsed">{seconds(now - round.thinkingStartedAt)} s</span>}
        </div>
        <div className="thinking-text">{round.thinking}</div>
      </div>
    );
  }
  // Live: the time between the first and the last thinking; reloaded: as stored (see history.ts).
  const ms =
    round.thinkingStartedAt !== null && round.thinkingEndedAt !== null ? round.thinkingEndedAt - round.thinkingStartedAt : (round.thinkingMs ?? null);
  const took = ms !== null ? ` for ${seconds(ms)} s` : "";
  return (
    <details className="thinking done" data-testid="thinking-block" data-state="done">
      <summary data-testid="thinking-summary">Thought{took}</summary>
      <div className="thinking-text">{round.thinking}</div>
    </details>
  );
}
