import { describe, expect, it } from "vitest";
import type { UsageGroup } from "../api/types";
import { costText, daysBetween, formatUSD, MAX_DAYS, niceMax, shapeChart } from "./usage";

function g(day: string, model: string, input: number, output: number, cost: number, calls = 1, unpriced = 0): UsageGroup {
  return {
    day,
    model,
    calls,
    input_tokens: input,
    output_tokens: output,
    cached_tokens: 0,
    cost_usd: cost,
    unpriced_calls: unpriced,
    duration_ms: 0,
  };
}

const groups = [
  g("2026-11-25", "openai/gpt-4o-mini", 2000, 300, 0.25),
  g("2026-11-25", "ollama/qwen3:8b", 1000, 100, 0, 2),
  g("2026-11-27", "ollama/qwen3:8b", 5000, 500, 0, 4),
  g("2026-11-27", "openai/mystery-1", 400, 40, 0, 1, 1),
];

describe("shapeChart", () => {
  it("stacks each day's models by tokens, in the order of the most used, with the days between", () => {
    const c = shapeChart(groups, "tokens");
    expect(c.models).toEqual(["ollama/qwen3:8b", "openai/gpt-4o-mini", "openai/mystery-1"]);
    expect(c.bars.map((b) => b.day)).toEqual(["2026-11-25", "2026-11-26", "2026-11-27"]);
    expect(c.bars[1].segments).toEqual([]);
    expect(c.bars[0].segments.map((s) => [s.model, s.from, s.to])).toEqual([
      ["ollama/qwen3:8b", 0, 1100],
      ["openai/gpt-4o-mini", 1100, 3400],
    ]);
    expect(c.bars[2].total).toBe(5940);
    expect(c.total).toBe(3400 + 5940);
    expect(c.max).toBe(10000);
  });

  it("orders the models by tokens in both charts, so that a model has one colour on the page", () => {
    expect(shapeChart(groups, "cost").models).toEqual(shapeChart(groups, "tokens").models);
  });

  it("spans the period asked for, days without calls included", () => {
    const c = shapeChart(groups, "tokens", { from: "2026-11-24", to: "2026-11-28" });
    expect(c.bars.map((b) => b.day)).toEqual(["2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28"]);
    expect(c.bars[0].segments).toEqual([]);
    expect(c.total).toBe(9340);
    expect(shapeChart([], "tokens", { from: "2026-11-27", to: "2026-11-28" }).bars.map((b) => b.total)).toEqual([0, 0]);
  });

  it("draws cost from priced calls only, and keeps a segment for calls of unknown price without a made-up figure", () => {
    const c = shapeChart(groups, "cost");
    expect(c.total).toBe(0.25);
    expect(c.unpriced).toBe(1);
    // The local model costs 0: no segment; the unpriced one has a segment of height 0 that says so.
    expect(c.bars[0].segments.map((s) => s.model)).toEqual(["openai/gpt-4o-mini"]);
    expect(c.bars[2].segments).toEqual([{ model: "openai/mystery-1", value: 0, from: 0, to: 0, calls: 1, unpriced: 1 }]);
    expect(c.bars[2].unpriced).toBe(1);
  });

  it("is empty for no calls, on a scale of 1", () => {
    const c = shapeChart([], "tokens");
    expect(c).toEqual({ bars: [], models: [], max: 1, total: 0, unpriced: 0 });
  });
});

describe("daysBetween", () => {
  it("counts across a month's end and keeps only the latest days of a long ledger", () => {
    expect(daysBetween("2026-10-30", "2026-11-02")).toEqual(["2026-10-30", "2026-10-31", "2026-11-01", "2026-11-02"]);
    const long = daysBetween("2020-01-01", "2026-11-28");
    expect(long).toHaveLength(MAX_DAYS);
    expect(long[long.length - 1]).toBe("2026-11-28");
  });
});

describe("niceMax", () => {
  it("rounds a scale's top up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect([0, 0.25, 3, 3400, 5940, 20000, 0.0031].map(niceMax)).toEqual([1, 0.25, 5, 5000, 10000, 20000, 0.005]);
  });
});

describe("costText", () => {
  it("never makes a figure up for calls whose price is unknown", () => {
    expect(costText({ calls: 3, cost_usd: 0.84, unpriced_calls: 0 }, "en-US")).toBe("$0.84");
    expect(costText({ calls: 2, cost_usd: 0, unpriced_calls: 2 }, "en-US")).toBe("price unknown");
    expect(costText({ calls: 5, cost_usd: 0.25, unpriced_calls: 1 }, "en-US")).toBe("$0.25 + 1 call of unknown price");
    expect(costText({ calls: 4, cost_usd: 0, unpriced_calls: 0 }, "en-US")).toBe("$0.00");
  });
  it("shows a cost under a cent", () => {
    expect(formatUSD(0.0031, "en-US")).toBe("$0.0031");
    expect(formatUSD(1234.5, "en-US")).toBe("$1,234.50");
  });
});
