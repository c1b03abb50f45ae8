import { describe, expect, it } from "vitest";
import type { UsageStatus } from "../api/types";
import { MAX_RUNS, sinceDay, topRuns } from "../pages/UsagePage";
import { limitsBody, limitsText } from "./UsageLimits";

const status = (limits: UsageStatus["limits"], today = 4400, this_month = 12000): UsageStatus => ({
  limits,
  day: "2026-11-28",
  month: "2026-11",
  today,
  this_month,
});

describe("limitsText", () => {
  it("says the limits and what was spent against them, as docent usage limit does", () => {
    expect(limitsText(status({ unit: "tokens" }))).toBe("No spending limits.");
    expect(limitsText(status({ daily: 6600, unit: "tokens", all_models: true }))).toBe(
      "Limits on all models: 6,600 tokens a day (4,400 tokens spent today).",
    );
    expect(limitsText(status({ daily: 0, monthly: 20, unit: "usd" }, 0, 1.5))).toBe(
      "Limits on hosted models: $0.00 a day ($0.00 spent today), $20.00 a month ($1.50 spent this month). A limit of 0 lets nothing be spent.",
    );
  });
});

describe("limitsBody", () => {
  const form = { daily: "", monthly: "", unit: "tokens" as const, all_models: false };
  it("sends an empty amount as no limit, and 0 as a limit", () => {
    expect(limitsBody({ ...form, daily: " 6600 ", all_models: true })).toEqual({ unit: "tokens", all_models: true, daily: 6600 });
    expect(limitsBody({ ...form, monthly: "0" })).toEqual({ unit: "tokens", all_models: false, monthly: 0 });
    expect(limitsBody(form)).toEqual({ unit: "tokens", all_models: false });
  });
  it("refuses text that is not a number, naming its field", () => {
    expect(limitsBody({ ...form, monthly: "ten" })).toEqual({ field: "monthly", error: 'monthly "ten": want a number of at least 0 (0: nothing may be spent)' });
  });
});

describe("sinceDay", () => {
  it("is the first day (UTC) of the last n days, today included, and nothing for everything", () => {
    const now = new Date("2026-11-28T23:30:00Z");
    expect(sinceDay("7", now)).toBe("2026-11-22");
    expect(sinceDay("30", now)).toBe("2026-10-30");
    expect(sinceDay("all", now)).toBeUndefined();
  });
});

describe("topRuns", () => {
  it("lists the runs that used the most tokens, at most MAX_RUNS", () => {
    const run = (id: string, tokens: number) => ({ run_id: id, calls: 1, input_tokens: tokens, output_tokens: 0, cached_tokens: 0, cost_usd: 0, unpriced_calls: 0, duration_ms: 0 });
    const runs = Array.from({ length: MAX_RUNS + 5 }, (_, i) => run(`thr_${i}`, i * 10));
    const top = topRuns(runs);
    expect(top).toHaveLength(MAX_RUNS);
    expect(top[0].run_id).toBe(`thr_${MAX_RUNS + 4}`);
    expect(top.map((g) => g.run_id)).not.toContain("thr_0");
  });
});
