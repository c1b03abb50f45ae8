// The Usage page's figures: the chart of cost and tokens per day by model
// shaped from GET /api/usage?by=day_model, and the words for costs, which
// never make a figure up for calls whose price is unknown.

import type { TurnUsage, UsageGroup, UsageTotals } from "../api/types";
import { formatCount, userLocale } from "../lib/format";

export type Metric = "cost" | "tokens";

/** One model's part of a day's bar. */
export interface Segment {
  model: string;
  /** The figure: dollars of the calls whose price is known, or input plus output tokens. */
  value: number;
  /** Where the segment starts and ends, from 0 up, in the metric's unit. */
  from: number;
  to: number;
  calls: number;
  /** Calls of the model that day whose price is unknown (not in value). */
  unpriced: number;
}

export interface DayBar {
  day: string;
  segments: Segment[];
  total: number;
  unpriced: number;
}

export interface Chart {
  /** Every day from the first to the last with calls (a day without is an empty bar). */
  bars: DayBar[];
  /** The models, most used first: the order of the segments and of the colours. */
  models: string[];
  /** The top of the scale: at least the tallest bar, a round figure. */
  max: number;
  /** The sum of the bars (what the chart shows in all). */
  total: number;
  /** Calls whose price is unknown, not in a cost chart's figures. */
  unpriced: number;
}

/** The most days a chart draws: a longer ledger shows its latest days. */
export const MAX_DAYS = 400;

export function metricOf(t: UsageTotals, metric: Metric): number {
  return metric === "cost" ? t.cost_usd : t.input_tokens + t.output_tokens;
}

/** The days from first to last, inclusive (YYYY-MM-DD, UTC), at most MAX_DAYS of the latest. */
export function daysBetween(first: string, last: string): string[] {
  const out: string[] = [];
  const end = Date.parse(last + "T00:00:00Z");
  for (let t = Date.parse(first + "T00:00:00Z"); t <= end; t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out.slice(-MAX_DAYS);
}

/**
 * The chart of one metric from the summary by day and model: a bar a day
 * of the period (from and to, YYYY-MM-DD; the days with calls where not
 * given), a segment per model with some of the metric that day, stacked
 * in the models' order. The models are ordered by their tokens whatever
 * the metric, so that a model has the same place and colour in the cost
 * and the tokens chart.
 */
export function shapeChart(groups: UsageGroup[], metric: Metric, period: { from?: string; to?: string } = {}): Chart {
  const byDay = new Map<string, UsageGroup[]>();
  const modelTokens = new Map<string, number>();
  for (const g of groups) {
    if (!g.day || !g.model) continue;
    byDay.set(g.day, [...(byDay.get(g.day) ?? []), g]);
    modelTokens.set(g.model, (modelTokens.get(g.model) ?? 0) + metricOf(g, "tokens"));
  }
  const models = [...modelTokens.keys()].sort((a, b) => modelTokens.get(b)! - modelTokens.get(a)! || a.localeCompare(b));
  const known = [...byDay.keys()].sort();
  // The period, widened to any day with calls outside it (a clock moved back).
  const ends = [period.from, period.to, known[0], known[known.length - 1]].filter((d): d is string => !!d).sort();
  const days = ends.length ? daysBetween(ends[0], ends[ends.length - 1]) : [];
  let total = 0;
  let unpriced = 0;
  let tallest = 0;
  const bars = days.map((day): DayBar => {
    const gs = byDay.get(day) ?? [];
    let at = 0;
    let dayUnpriced = 0;
    const segments: Segment[] = [];
    for (const model of models) {
      const g = gs.find((x) => x.model === model);
      if (!g) continue;
      const value = metricOf(g, metric);
      dayUnpriced += g.unpriced_calls;
      if (value <= 0 && !(metric === "cost" && g.unpriced_calls > 0)) continue;
      segments.push({ model, value, from: at, to: at + value, calls: g.calls, unpriced: g.unpriced_calls });
      at += value;
    }
    total += at;
    unpriced += dayUnpriced;
    tallest = Math.max(tallest, at);
    return { day, segments, total: at, unpriced: dayUnpriced };
  });
  return { bars, models, max: niceMax(tallest), total, unpriced };
}

/** A round top for a scale: 1, 2, 2.5 or 5 times a power of ten, at least v (1 for nothing). */
export function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/** Dollars: "$0.84", "$0.0031" under a cent (so a cheap call is not $0.00), "$0.00" for nothing. */
export function formatUSD(v: number, locale = userLocale()): string {
  const digits = v > 0 && v < 0.01 ? 4 : 2;
  return new Intl.NumberFormat(locale, { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: digits }).format(v);
}

/** A cost that leaves some calls out: "$0.25 + 1 call of unknown price". */
function partlyPriced(cost: number, unpriced: number, locale: string): string {
  return `${formatUSD(cost, locale)} + ${formatCount(unpriced, locale)} ${unpriced === 1 ? "call" : "calls"} of unknown price`;
}

/** The cost of a group of calls, as `docent usage` says it: never a made-up figure for calls whose price is unknown. */
export function costText(t: Pick<UsageTotals, "calls" | "cost_usd" | "unpriced_calls">, locale = userLocale()): string {
  if (t.unpriced_calls === 0) return formatUSD(t.cost_usd, locale);
  if (t.unpriced_calls >= t.calls) return "price unknown";
  return partlyPriced(t.cost_usd, t.unpriced_calls, locale);
}

/**
 * A chat turn's cost for its footer: "$0.0014", "price unknown" when no
 * call had a price, "$0.25 + 1 call of unknown price" when some had none;
 * null for $0 (a local model: its tokens say enough) and when the server
 * sent no cost.
 */
export function turnCostText(u: Pick<TurnUsage, "cost_usd" | "unpriced_calls">, locale = userLocale()): string | null {
  const unpriced = u.unpriced_calls ?? 0;
  if (u.cost_usd === undefined) return unpriced > 0 ? "price unknown" : null;
  if (unpriced === 0) return u.cost_usd > 0 ? formatUSD(u.cost_usd, locale) : null;
  return partlyPriced(u.cost_usd, unpriced, locale);
}

/** A figure of a metric in words: "$0.84" or "12,400 tokens". */
export function metricText(v: number, metric: Metric, locale = userLocale()): string {
  return metric === "cost" ? formatUSD(v, locale) : `${formatCount(v, locale)} tokens`;
}

/** The edges a call came through, in words (as the history names them). */
export const EDGE_LABELS: Record<string, string> = {
  agent: "Agent (chat)",
  auto_create: "Auto-create",
  ui: "You, in Docent",
  cli: "Command line",
  mcp: "MCP client",
  system: "Docent itself",
};

/** A model id in words: "qwen3:8b (local)" for a model on this machine, else the id. */
export function modelLabel(model: string): string {
  return model.startsWith("ollama/") ? `${model.slice("ollama/".length)} (local)` : model;
}
