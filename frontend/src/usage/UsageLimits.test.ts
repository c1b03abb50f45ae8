import { describe, expect, it } from "vitest";
import type { UsageStatus } from "../api/types";
import { MAX_RUNS, sinceDay, topRuns } from "../pages/UsagePage";
import { limitsBody, limitsText, requestLimitsText } from "./UsageLimits";

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

describe("requestLimitsText", () => {
  it("says the per-minute limit and the threshold above which a batch asks first", () => {
    expect(requestLimitsText({ unit: "tokens", confirm_over_usd: 1 })).toBe(
      "No limit on model requests a minute. Docent asks before an auto-create batch estimated over $1.00.",
    );
    expect(requestLimitsText({ unit: "tokens", per_minute: 30, confirm_over_usd: 0.5 })).toBe(
      "At most 30 model requests a minute. Docent asks before an auto-create batch estimated over $0.50.",
    );
    expect(requestLimitsText({ unit: "tokens", per_minute: 1, confirm_over_usd: 0 })).toBe(
      "At most 1 model request a minute. Docent asks before every auto-create batch on a hosted model.",
    );
  });
});

describe("limitsBody", () => {
  const form = { daily: "", monthly: "", unit: "tokens" as const, all_models: false, per_minute: "", confirm_over_usd: "" };
  it("sends an empty amount as no limit, and 0 as a limit", () => {
    expect(limitsBody({ ...form, daily: " 6600 ", all_models: true })).toEqual({ unit: "tokens", all_models: true, daily: 6600, per_minute: 0 });
    expect(limitsBody({ ...form, monthly: "0" })).toEqual({ unit: "tokens", all_models: false, monthly: 0, per_minute: 0 });
    expect(limitsBody(form)).toEqual({ unit: "tokens", all_models: false, per_minute: 0 });
  });
  it("sends the per-minute limit and the confirm threshold (left out: the server's default)", () => {
    expect(limitsBody({ ...form, per_minute: " 30 ", confirm_over_usd: "2.5" })).toEqual({ unit: "tokens", all_models: false, per_minute: 30, confirm_over_usd: 2.5 });
  });
  it("refuses text that is not a number, naming its field", () => {
    expect(limitsBody({ ...form, monthly: "ten" })).toEqual({ field: "monthly", error: 'monthly "ten": want a number of at least 0 (0: nothing may be spent)' });
    expect(limitsBody({ ...form, per_minute: "many" })).toEqual({ field: "per_minute", error: 'per_minute "many": want a whole number of requests a minute (0: no limit)' });
    expect(limitsBody({ ...form, confirm_over_usd: "$2" })).toEqual({ field: "confirm_over_usd", error: 'confirm_over_usd "$2": want an amount in US dollars, such as 1.00' });
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
