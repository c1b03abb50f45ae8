// The Usage page: what the model calls used and cost, per day by model (a
// chart of each), by model, edge and run, and the spending limits
// (GET /api/usage, GET/PUT/DELETE /api/usage/limits), and the prices calls
// are costed at (GET/PUT /api/usage/prices): here rather than in Settings,
// beside the figures they make and the limits in dollars they feed. A call
// whose price is unknown says so; a local model costs 0.

import { useMemo, useState } from "react";
import { api } from "../api/routes.gen";
import type { UsageGroup, UsageReport, UsageTotals } from "../api/types";
import { ErrorBox, Spinner } from "../components/common";
import { formatCount } from "../lib/format";
import { useAsync } from "../lib/useAsync";
import { useTitle } from "../lib/useTitle";
import { UsageChart } from "../usage/UsageChart";
import { UsageLimits } from "../usage/UsageLimits";
import { UsagePricesCard } from "../usage/UsagePrices";
import { costText, EDGE_LABELS, modelLabel, shapeChart } from "../usage/usage";
import "../usage/usage.css";

const PERIODS: [string, string][] = [
  ["7", "The last 7 days"],
  ["30", "The last 30 days"],
  ["90", "The last 90 days"],
  ["all", "Everything"],
];

/** The first day (UTC) of the last n days, today included; undefined for everything. */
export function sinceDay(period: string, now = new Date()): string | undefined {
  const n = Number(period);
  if (!Number.isInteger(n) || n < 1) return undefined;
  return new Date(now.getTime() - (n - 1) * 86_400_000).toISOString().slice(0, 10);
}

function totalsText(t: UsageTotals): string {
  const tokens = t.input_tokens + t.output_tokens;
  return `${formatCount(t.calls)} ${t.calls === 1 ? "call" : "calls"}, ${formatCount(tokens)} tokens, ${costText(t)}`;
}

/** The most runs the table lists: a batch of 500 documents is 500 runs. */
export const MAX_RUNS = 25;

/** The runs that used the most tokens, at most MAX_RUNS of them. */
export function topRuns(groups: UsageGroup[]): UsageGroup[] {
  const tokens = (g: UsageGroup) => g.input_tokens + g.output_tokens;
  return [...groups].sort((a, b) => tokens(b) - tokens(a)).slice(0, MAX_RUNS);
}

function UsageTable({ title, keyLabel, groups, label, testid, empty, more = 0 }: {
  title: string;
  keyLabel: string;
  groups: UsageGroup[];
  label: (g: UsageGroup) => string;
  testid: string;
  empty: string;
  /** How many groups are left out of the table (the smallest). */
  more?: number;
}) {
  return (
    <section className="card" aria-labelledby={`${testid}-title`}>
      <h2 id={`${testid}-title`}>{title}</h2>
      {groups.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <div className="field-table-scroll">
          <table className="field-table usage-table" data-testid={testid}>
            <thead>
              <tr>
                <th scope="col">{keyLabel}</th>
                <th scope="col">Calls</th>
                <th scope="col">Input tokens</th>
                <th scope="col">Output tokens</th>
                <th scope="col">Cached tokens</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={label(g)} data-testid={`${testid}-row`}>
                  <th scope="row">{label(g)}</th>
                  <td>{formatCount(g.calls)}</td>
                  <td>{formatCount(g.input_tokens)}</td>
                  <td>{formatCount(g.output_tokens)}</td>
                  <td>{formatCount(g.cached_tokens)}</td>
                  <td className={g.unpriced_calls > 0 ? "usage-unpriced" : undefined}>{costText(g)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {more > 0 && (
            <p className="muted small-text">
              And {formatCount(more)} smaller {more === 1 ? "run" : "runs"}: <code>docent usage --by run</code> lists them all.
            </p>
          )}
        </div>
      )}
    </section>
  );
}

export default function UsagePage() {
  useTitle("Usage");
  const [period, setPeriod] = useState("30");
  const since = sinceDay(period);
  const load = useAsync(
    async (): Promise<Record<"day_model" | "model" | "edge" | "run", UsageReport>> => {
      const [day_model, model, edge, run] = await Promise.all([
        api.usage({ by: "day_model", since }),
        api.usage({ by: "model", since }),
        api.usage({ by: "edge", since }),
        api.usage({ by: "run", since }),
      ]);
      return { day_model, model, edge, run };
    },
    [since],
  );
  const d = load.data;
  // The charts span the period up to the server's today (the ledger's clock).
  const charts = useMemo(() => {
    if (!d) return null;
    const period = { from: since, to: d.day_model.status.day };
    return { cost: shapeChart(d.day_model.groups, "cost", period), tokens: shapeChart(d.day_model.groups, "tokens", period) };
  }, [d, since]);

  return (
    <div className="page usage-page" data-testid="usage-page">
      <div className="page-head">
        <h1>Usage</h1>
        <label>
          Period{" "}
          <select value={period} onChange={(e) => setPeriod(e.target.value)} data-testid="usage-period">
            {PERIODS.map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="muted">
        Every model call Docent makes, for chat, extraction, auto-create, search, OCR and MCP clients, with its tokens and its cost from the
        price list. Local models cost nothing; a model without a known price shows “price unknown”. Days are UTC.
      </p>
      {load.loading && !d && <Spinner label="Summing the usage…" />}
      {load.error && <ErrorBox title="Could not load the usage" error={load.error} onRetry={load.reload} />}
      {d && charts && (
        <>
          <section className="card" aria-labelledby="usage-total-title">
            <h2 id="usage-total-title">In all</h2>
            <p className="usage-total" data-testid="usage-total">
              {totalsText(d.model.total)}
            </p>
            {d.model.total.calls === 0 ? (
              <p className="muted">No model calls in this period.</p>
            ) : (
              <div className="usage-charts">
                <UsageChart chart={charts.cost} metric="cost" title="Cost per day by model" />
                <UsageChart chart={charts.tokens} metric="tokens" title="Tokens per day by model (input and output)" />
              </div>
            )}
          </section>
          <UsageTable
            title="By model"
            keyLabel="Model"
            groups={d.model.groups}
            label={(g) => modelLabel(g.model ?? "")}
            testid="usage-by-model"
            empty="No model calls in this period."
          />
          <UsageTable
            title="By edge"
            keyLabel="Through"
            groups={d.edge.groups}
            label={(g) => EDGE_LABELS[g.edge ?? ""] ?? g.edge ?? ""}
            testid="usage-by-edge"
            empty="No model calls in this period."
          />
          <UsageTable
            title="By auto-create run"
            keyLabel="Run"
            groups={topRuns(d.run.groups)}
            label={(g) => runLabel(d.run, g)}
            more={d.run.groups.length - MAX_RUNS}
            testid="usage-by-run"
            empty="No auto-create runs made model calls in this period."
          />
        </>
      )}
      <UsageLimits onChange={load.reload} />
      <UsagePricesCard onChange={load.reload} />
    </div>
  );
}

/** A run by what it worked on; runs of the same name are told apart by their order. */
function runLabel(r: UsageReport, g: UsageGroup): string {
  const name = r.run_names?.[g.run_id ?? ""] ?? "auto-create run";
  const same = r.groups.filter((x) => (r.run_names?.[x.run_id ?? ""] ?? "auto-create run") === name);
  return same.length > 1 ? `${name} (${same.indexOf(g) + 1} of ${same.length})` : name;
}
