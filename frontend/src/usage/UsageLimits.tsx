// The spending limits: what they are and what was spent against them, and
// a form to set or remove them (GET/PUT/DELETE /api/usage/limits, as
// `docent usage limit`).

import { useState } from "react";
import { api } from "../api/routes";
import type { UsageLimitsBody, UsageStatus } from "../api/types";
import { ErrorBox } from "../components/common";
import { errorInput } from "../lib/errors";
import { useAsync, useSave } from "../lib/useAsync";
import { metricText } from "./usage";

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

interface Form {
  daily: string;
  monthly: string;
  unit: "tokens" | "usd";
  all_models: boolean;
}

function formOf(st: UsageStatus): Form {
  const l = st.limits;
  return { daily: l.daily == null ? "" : String(l.daily), monthly: l.monthly == null ? "" : String(l.monthly), unit: l.unit === "usd" ? "usd" : "tokens", all_models: !!l.all_models };
}

/** The body of a form: an empty amount is no limit; text that is not a number is refused here, naming its field. */
export function limitsBody(f: Form): UsageLimitsBody | { field: "daily" | "monthly"; error: string } {
  const body: UsageLimitsBody = { unit: f.unit, all_models: f.all_models };
  for (const k of ["daily", "monthly"] as const) {
    const t = f[k].trim();
    if (t === "") continue;
    const v = Number(t);
    if (!Number.isFinite(v)) return { field: k, error: `${k} ${JSON.stringify(t)}: want a number of at least 0 (0: nothing may be spent)` };
    body[k] = v;
  }
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
