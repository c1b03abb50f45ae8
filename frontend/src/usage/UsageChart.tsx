// A stacked bar chart of one metric per day by model, drawn as SVG by our
// own code: a bar a day, a segment per model. Its text alternative is a
// summary (the SVG's description) and the figures as a table.

import { useId } from "react";
import { formatCount } from "../lib/format";
import { metricText, modelLabel, type Chart, type Metric } from "./usage";

// The drawing's size in its own units, about its size on a wide page, so
// that its text is as large as the page's small text.
const W = 520;
const H = 200;
const LEFT = 56;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 26;

/** The colour of the nth model: the same in both themes, apart enough on light and dark backgrounds. */
export const MODEL_COLORS = ["#3b63d9", "#e08a00", "#1f9d6b", "#c2417a", "#7a5cd6", "#0f8fa8", "#a0522d", "#7c8594"];

export function modelColor(models: string[], model: string): string {
  const i = models.indexOf(model);
  return i < 0 ? MODEL_COLORS[MODEL_COLORS.length - 1] : MODEL_COLORS[Math.min(i, MODEL_COLORS.length - 1)];
}

/** "Nov 25" for 2026-11-25 (UTC, in the user's language). */
function dayLabel(day: string): string {
  return new Date(day + "T00:00:00Z").toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
}

/** A short figure for an axis: "$0.25", "12k", "1.5M". */
function axisText(v: number, metric: Metric): string {
  if (metric === "cost") return metricText(v, "cost");
  if (v >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `${+(v / 1e3).toFixed(1)}k`;
  return formatCount(v);
}

export function UsageChart({ chart, metric, title }: { chart: Chart; metric: Metric; title: string }) {
  const id = useId();
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const n = Math.max(chart.bars.length, 1);
  const slot = plotW / n;
  const barW = Math.max(1, Math.min(40, slot * 0.7));
  const y = (v: number) => TOP + plotH - (v / chart.max) * plotH;
  const labelEvery = Math.ceil(n / 8);
  const busiest = chart.bars.reduce<(typeof chart.bars)[number] | null>((a, b) => (!a || b.total > a.total ? b : a), null);
  const summary =
    chart.bars.length === 0
      ? "No model calls in this period."
      : `${metricText(chart.total, metric)} over ${chart.bars.length} ${chart.bars.length === 1 ? "day" : "days"}` +
        (busiest && busiest.total > 0 ? `; the most on ${busiest.day}, ${metricText(busiest.total, metric)}` : "") +
        (metric === "cost" && chart.unpriced > 0
          ? `; ${formatCount(chart.unpriced)} ${chart.unpriced === 1 ? "call of unknown price is" : "calls of unknown price are"} not in it`
          : "") +
        ".";
  return (
    <figure className="usage-chart" data-testid={`usage-chart-${metric}`} data-total={chart.total}>
      <figcaption>
        <h3 id={`${id}-title`}>{title}</h3>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title`} aria-describedby={`${id}-desc`} preserveAspectRatio="xMidYMid meet">
        <desc id={`${id}-desc`}>{summary}</desc>
        {[0, 0.5, 1].map((f) => (
          <g key={f} className="usage-grid">
            <line x1={LEFT} x2={W - RIGHT} y1={y(chart.max * f)} y2={y(chart.max * f)} />
            <text x={LEFT - 6} y={y(chart.max * f) + 4} textAnchor="end">
              {axisText(chart.max * f, metric)}
            </text>
          </g>
        ))}
        {chart.bars.map((b, i) => {
          const x = LEFT + i * slot + (slot - barW) / 2;
          return (
            <g key={b.day}>
              {b.segments.map((s) =>
                s.value > 0 ? (
                  <rect
                    key={s.model}
                    data-testid="usage-bar"
                    data-day={b.day}
                    data-model={s.model}
                    data-value={s.value}
                    x={x}
                    width={barW}
                    y={y(s.to)}
                    height={Math.max(0.5, y(s.from) - y(s.to))}
                    fill={modelColor(chart.models, s.model)}
                  >
                    <title>{`${b.day} · ${modelLabel(s.model)}: ${metricText(s.value, metric)}${s.unpriced ? ` and ${s.unpriced} calls of unknown price` : ""}`}</title>
                  </rect>
                ) : (
                  // Calls whose price is unknown: a mark on the baseline, no figure.
                  <rect
                    key={s.model}
                    data-testid="usage-bar-unpriced"
                    data-day={b.day}
                    data-model={s.model}
                    className="usage-unpriced-mark"
                    x={x}
                    width={barW}
                    y={y(s.from) - 3}
                    height={3}
                  >
                    <title>{`${b.day} · ${modelLabel(s.model)}: price unknown (${s.unpriced} ${s.unpriced === 1 ? "call" : "calls"})`}</title>
                  </rect>
                ),
              )}
              {(n - 1 - i) % labelEvery === 0 && (
                <text className="usage-axis" x={LEFT + i * slot + slot / 2} y={H - 8} textAnchor="middle">
                  {dayLabel(b.day)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <ul className="usage-legend" aria-label="Models">
        {chart.models.map((m) => (
          <li key={m}>
            <span className="usage-swatch" style={{ background: modelColor(chart.models, m) }} aria-hidden="true" />
            {modelLabel(m)}
          </li>
        ))}
      </ul>
      <p className="muted small-text" data-testid={`usage-chart-summary-${metric}`}>
        {summary}
      </p>
      <details>
        <summary>The figures as a table</summary>
        <table className="field-table">
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Model</th>
              <th scope="col">{metric === "cost" ? "Cost" : "Tokens"}</th>
            </tr>
          </thead>
          <tbody>
            {chart.bars.flatMap((b) =>
              b.segments.map((s) => (
                <tr key={b.day + s.model}>
                  <td>{b.day}</td>
                  <td>{modelLabel(s.model)}</td>
                  <td>{metric === "cost" && s.value === 0 && s.unpriced ? "price unknown" : metricText(s.value, metric)}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
