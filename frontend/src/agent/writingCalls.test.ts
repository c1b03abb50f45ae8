import { describe, expect, it } from "vitest";
import type { AgentEvent, Summary, ToolCall } from "../api/types";
import { writesWatcher } from "./writingCalls";

const call = (id: string, name: string, summary?: Partial<Summary>): ToolCall => ({
  id,
  name,
  arguments: {},
  summary: summary && ({ title: name, lines: [], ...summary } as Summary),
});
const result = (id: string, name: string, success = true): AgentEvent => ({ type: "tool_result", round_index: 0, call_id: id, name, success });

describe("calls that write", () => {
  it("are known by what the summary declares, not by the tool's name", () => {
    const wrote = writesWatcher();
    const calls: AgentEvent = {
      type: "tool_calls",
      round_index: 0,
      needs_approval: [],
      tool_calls: [call("c1", "create_tag", {}), call("c2", "rename_everything", { writes: true, ops: ["update"] }), call("c3", "run_extraction", { writes: true })],
    };
    expect(wrote(calls)).toBe(false);
    expect(wrote(result("c1", "create_tag"))).toBe(false); // a name that looks like a write is not one
    expect(wrote(result("c2", "rename_everything"))).toBe(true);
    expect(wrote(result("c3", "run_extraction", false))).toBe(false); // failed: nothing changed
    expect(wrote(result("c9", "delete_tag"))).toBe(false); // a call the watcher never saw
  });

  it("include the paused calls an approval runs", () => {
    const wrote = writesWatcher([call("p1", "delete_tag", { writes: true, ops: ["delete"], destructive: true }), call("p2", "list_tags")]);
    expect(wrote(result("p1", "delete_tag"))).toBe(true);
    expect(wrote(result("p2", "list_tags"))).toBe(false);
  });
});
