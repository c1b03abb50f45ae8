// The spending limits: what they are and what was spent against them, and
// a form to set or remove them (GET/PUT/DELETE /api/usage/limits, as
// `docent usage limit`), with the per-minute limit on model requests and
// the estimate above which the app asks before an auto-create batch.

import { useState } from "react";
import { api } from "../api/routes.gen";
import type { UsageStatus } from "../api/types";
import { ErrorBox } from "../components/common";
import { errorInput } from "../lib/errors";
import { formatCount } from "../lib/format";
import { useAsync, useSave } from "../lib/useAsync";
import { formatUSD, metricText } from "./usage";
import type { Limits, LimitsBody } from "./wire";

function amount(v: number, unit: string): string {
  return metricText(v, unit === "usd" ? "cost" : "tokens");
}

/** The limits in words, as `docent usage limit` says them. */
export function limitsText(st: UsageStatus): string {
  const l = st.limits;
  if (l.daily == null && l.monthly == null) return "No spending limits.";
  const parts: string[] = [];
  if (l.daily != null) parts.push(`${amount(l.daily, l.unit)} a day (${amount(st.today, l.unit)} spent today)`);
  if (l.monthly != null) parts.push(`${amount(l.monthly, l.unit)} a month (${amount(st.this_month, l.unit)} spent this month)`);
  let s = `Limits on ${l.all_models ? "all models" : "hosted models"}: ${parts.join(", ")}.`;
  if (l.daily === 0 || l.monthly === 0) s += " A limit of 0 lets nothing be spent.";
  return s;
}

/** The limit on requests and the confirm threshold in words. */
export function requestLimitsText(l: Limits): string {
  const n = l.per_minute ?? 0;
  const rate = n > 0 ? `At most ${formatCount(n)} model ${n === 1 ? "request" : "requests"} a minute.` : "No limit on model requests a minute.";
  const over = l.confirm_over_usd ?? 1;
  const ask = over > 0 ? `Docent asks before an auto-create batch estimated over ${formatUSD(over)}.` : "Docent asks before every auto-create batch on a hosted model.";
  return `${rate} ${ask}`;
}

interface Form {
  daily: string;
  monthly: string;
  unit: "tokens" | "usd";
  all_models: boolean;
  per_minute: string;
  confirm_over_usd: string;
}

type FormField = "daily" | "monthly" | "per_minute" | "confirm_over_usd";

function formOf(st: UsageStatus): Form {
  const l: Limits = st.limits;
  const text = (v: number | undefined) => (v == null ? "" : String(v));
  return {
    daily: text(l.daily),
    monthly: text(l.monthly),
    unit: l.unit === "usd" ? "usd" : "tokens",
    all_models: !!l.all_models,
    per_minute: l.per_minute ? String(l.per_minute) : "",
    confirm_over_usd: text(l.confirm_over_usd),
  };
}

const NOT_A_NUMBER: Record<FormField, string> = {
  daily: "want a number of at least 0 (0: nothing may be spent)",
  monthly: "want a number of at least 0 (0: nothing may be spent)",
  per_minute: "want a whole number of requests a minute (0: no limit)",
  confirm_over_usd: "want an amount in US dollars, such as 1.00",
};

/**
 * The body of a form, all the limits (PUT replaces them): an empty amount
 * is no limit, an empty per-minute limit 0 (none), an empty threshold the
 * server's default. Text that is not a number is refused here, naming its
 * field; the server judges the numbers.
 */
export function limitsBody(f: Form): LimitsBody | { field: FormField; error: string } {
  const body: LimitsBody = { unit: f.unit, all_models: f.all_models };
  for (const k of ["daily", "monthly", "per_minute", "confirm_over_usd"] as const) {
    const t = f[k].trim();
    if (t === "") continue;
    const v = Number(t);
    if (!Number.isFinite(v)) return { field: k, error: `${k} ${JSON.stringify(t)}: ${NOT_A_NUMBER[k]}` };
    body[k] = v;
  }
  body.per_minute ??= 0;
  return body;
}

export function UsageLimits({ onChange }: { onChange?: () => void }) {
  const s = useAsync(api.usageLimits, []);
  const [form, setForm] = useState<Form | null>(null);
  const [local, setLocal] = useState<{ field: string; error: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const { busy, err, save } = useSave(s, () => {
    setForm(null);
    setDone("Saved. Every model call is held to these limits from now on.");
    onChange?.();
  });
  if (!s.data) return s.error ? <ErrorBox title="Could not load the spending limits" error={s.error} onRetry={s.reload} /> : null;
  const st = s.data;
  const f = form ?? formOf(st);
  const edit = (p: Partial<Form>) => {
    setForm({ ...f, ...p });
    setDone(null);
    setLocal(null);
  };
  const any = st.limits.daily != null || st.limits.monthly != null;
  const fieldOf = (e: unknown) => local?.field ?? (e ? errorInput(e).field : undefined);
  const errField = fieldOf(err);
  return (
    <section className="card" data-testid="usage-limits" aria-labelledby="usage-limits-title">
      <h2 id="usage-limits-title">Spending limits</h2>
      <p data-testid="usage-limits-text">{limitsText(st)}</p>
      <p data-testid="usage-request-limits-text">{requestLimitsText(st.limits)}</p>
      {st.reached && (
        <p className="usage-reached" role="alert" data-testid="usage-limit-reached">
          {st.reached}
        </p>
      )}
      <p className="muted small-text">
        Every model call is checked against these just before it goes out; a chat turn over a limit ends with a message, an auto-create
        batch waits until the limit is raised or the day or month is over. Days and months are UTC. The command line sets the same limits:{" "}
        <code>docent usage limit</code>.
      </p>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          setDone(null);
          const b = limitsBody(f);
          if ("error" in b) {
            setLocal(b);
            return;
          }
          setLocal(null);
          save(api.putUsageLimits(b));
        }}
      >
        <div className="form-row">
          <label>
            A day
            <input inputMode="decimal" value={f.daily} onChange={(e) => edit({ daily: e.target.value })} placeholder="no limit" aria-invalid={errField === "daily" || undefined} data-testid="usage-limit-daily" />
          </label>
          <label>
            A month
            <input inputMode="decimal" value={f.monthly} onChange={(e) => edit({ monthly: e.target.value })} placeholder="no limit" aria-invalid={errField === "monthly" || undefined} data-testid="usage-limit-monthly" />
          </label>
          <label>
            In
            <select value={f.unit} onChange={(e) => edit({ unit: e.target.value as Form["unit"] })} data-testid="usage-limit-unit">
              <option value="tokens">tokens (input and output)</option>
              <option value="usd">US dollars</option>
            </select>
          </label>
        </div>
        <div className="form-row">
          <label>
            Model requests a minute
            <input inputMode="numeric" value={f.per_minute} onChange={(e) => edit({ per_minute: e.target.value })} placeholder="no limit" aria-invalid={errField === "per_minute" || undefined} aria-describedby="usage-limit-per-minute-hint" data-testid="usage-limit-per-minute" />
          </label>
          <label>
            Ask before a batch over (US dollars)
            <input inputMode="decimal" value={f.confirm_over_usd} onChange={(e) => edit({ confirm_over_usd: e.target.value })} placeholder="1.00" aria-invalid={errField === "confirm_over_usd" || undefined} aria-describedby="usage-limit-confirm-hint" data-testid="usage-limit-confirm" />
          </label>
        </div>
        <p className="muted small-text" id="usage-limit-per-minute-hint">
          Requests to this server that call a model (chat, extraction, auto-create, search by meaning), from any browser or MCP client; one
          over the limit is refused and may be sent again a minute later.
        </p>
        <p className="muted small-text" id="usage-limit-confirm-hint">
          Before an auto-create batch on a hosted model Docent estimates its cost from the documents' tokens and the prices below, and asks
          first when the estimate is over this amount or the price is unknown.
        </p>
        <label className="check">
          <input type="checkbox" checked={f.all_models} onChange={(e) => edit({ all_models: e.target.checked })} data-testid="usage-limit-all-models" />
          Count local models too (they cost nothing, but their tokens count against a limit in tokens)
        </label>
        <div className="row">
          <button type="submit" className="btn primary" disabled={busy} data-testid="usage-limit-save">
            Save the limits
          </button>
          {any && (
            <button type="button" className="btn" disabled={busy} onClick={() => save(api.removeUsageLimits())} data-testid="usage-limit-remove">
              Remove the limits
            </button>
          )}
          {done && (
            <span className="muted" role="status" data-testid="usage-limit-saved">
              {done}
            </span>
          )}
        </div>
      </form>
      {local && (
        <p className="error" role="alert" data-testid="usage-limit-error">
          Not saved: {local.error}
        </p>
      )}
      {err !== null && !local && <ErrorBox title="Not saved" error={err} testid="usage-limit-error" />}
    </section>
  );
}
