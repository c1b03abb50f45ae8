import type { AgentEvent, ToolCall } from "../api/types";

/**
 * Watches a stream for a successful call of a tool that writes, as the
 * call's summary says the server's registry declares it (`writes`), never
 * as the tool's name reads: after one, a schema, prompt, tag or document
 * may have been made, renamed or deleted. `known` are calls proposed before
 * the stream (a paused batch being approved); the stream's tool_calls
 * events add theirs. Returns, for each event, whether it is such a result.
 */
export function writesWatcher(known: ToolCall[] = []): (e: AgentEvent) => boolean {
  const writes = new Set<string>();
  const note = (calls: ToolCall[]) => calls.forEach((c) => c.summary?.writes && writes.add(c.id));
  note(known);
  return (e) => {
    if (e.type === "tool_calls") note(e.tool_calls);
    return e.type === "tool_result" && e.success && writes.has(e.call_id);
  };
}
