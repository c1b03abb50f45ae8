// The prices the usage ledger costs calls at: each model's price per
// million tokens and where it comes from (the dated price list, a
// person's override, a local model, or none known), and a form to set or
// remove a person's price for one model (GET/PUT /api/usage/prices).

import { useEffect, useId, useRef, useState } from "react";
import { api } from "../api/routes.gen";
import { ErrorBox } from "../components/common";
import { useAsync, useSave } from "../lib/useAsync";
import { modelLabel } from "./usage";
import { userLocale } from "../lib/format";
import type { ModelPrice, PriceOverride, UsagePrices } from "./wire";

const SOURCE_TEXT: Record<ModelPrice["source"], string> = {
  list: "Price list",
  override: "Your price",
  local: "Local: free",
  unknown: "price unknown",
};

/** The form's text for each price (dollars per million tokens). */
export interface PriceForm {
  input: string;
  output: string;
  cached: string;
}

type PriceField = keyof PriceForm;

/** The form for a model: its price where one is known, empty where not. */
export function priceForm(p: ModelPrice): PriceForm {
  if (p.source === "unknown") return { input: "", output: "", cached: "" };
  const text = (v: number | undefined) => (v == null ? "" : String(v));
  return { input: text(p.input), output: text(p.output), cached: text(p.cached) };
}

/**
 * The override a form says: input and output prices are needed, the
 * cached one is left out when empty. Text that is not a number is refused
 * here, naming its field; the server judges the numbers (400 on a
 * negative one).
 */
export function overrideOf(f: PriceForm): PriceOverride | { field: PriceField; error: string } {
  const out: Partial<PriceOverride> = {};
  const parts: [PriceField, string][] = [
    ["input", "input"],
    ["output", "output"],
    ["cached", "cached input"],
  ];
  for (const [field, what] of parts) {
    const t = f[field].trim();
    const want = `want the dollars a million ${what} tokens cost, such as 2.50`;
    if (t === "") {
      if (field === "cached") continue;
      return { field, error: `${field}: ${want}` };
    }
    const v = Number(t);
    if (!Number.isFinite(v)) return { field, error: `${field} ${JSON.stringify(t)}: ${want}` };
    out[field] = v;
  }
  return out as PriceOverride;
}

/** The prices a person set, by model, as PUT /api/usage/prices takes them: the models whose price is an override. */
export function overridesOf(prices: UsagePrices): Record<string, PriceOverride> {
  const out: Record<string, PriceOverride> = {};
  for (const p of prices.models)
    if (p.source === "override" && p.input != null && p.output != null) out[p.model] = { input: p.input, output: p.output, ...(p.cached != null ? { cached: p.cached } : {}) };
  return out;
}

/** The overrides with one model's set (value) or removed (null); the others kept. */
export function withOverride(overrides: Record<string, PriceOverride>, model: string, value: PriceOverride | null): Record<string, PriceOverride> {
  const next = { ...overrides };
  if (value) next[model] = value;
  else delete next[model];
  return next;
}

/** A price per million tokens as the list gives it: "$0.60", "$0.075" (not rounded to cents). */
function priceUSD(v: number): string {
  return new Intl.NumberFormat(userLocale(), { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 4 }).format(v);
}

function perMtok(p: ModelPrice, v: number | undefined): string {
  if (p.source === "unknown") return "price unknown";
  return v == null ? "—" : priceUSD(v);
}

/** The table of the models' prices, with a button to set each hosted model's and to remove a person's own. */
export function PricesTable({ prices, busy, onEdit, onRemove }: {
  prices: UsagePrices;
  busy: boolean;
  onEdit(p: ModelPrice, button: HTMLButtonElement): void;
  onRemove(p: ModelPrice): void;
}) {
  if (prices.models.length === 0) return <p className="muted">No models yet: the models Docent can use and has used are listed here.</p>;
  return (
    <div className="field-table-scroll">
      <table className="field-table usage-table usage-prices" data-testid="usage-prices-table">
        <caption className="visually-hidden">Prices in US dollars per million tokens</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Input</th>
            <th scope="col">Output</th>
            <th scope="col">Cached input</th>
            <th scope="col">From</th>
            <th scope="col">
              <span className="visually-hidden">Change</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {prices.models.map((p) => (
            <tr key={p.model} data-testid="usage-price-row" data-model={p.model} data-source={p.source}>
              <th scope="row">{modelLabel(p.model)}</th>
              <td className={p.source === "unknown" ? "usage-unpriced" : undefined}>{perMtok(p, p.input)}</td>
              <td className={p.source === "unknown" ? "usage-unpriced" : undefined}>{perMtok(p, p.output)}</td>
              <td className={p.source === "unknown" ? "usage-unpriced" : undefined}>{perMtok(p, p.cached)}</td>
              <td className="usage-price-source">{SOURCE_TEXT[p.source] ?? p.source}</td>
              <td className="usage-price-actions">
                {p.source !== "local" && (
                  <button type="button" className="btn small" disabled={busy} onClick={(e) => onEdit(p, e.currentTarget)} aria-label={`Set price of ${p.model}`} data-testid="usage-price-edit">
                    Set price
                  </button>
                )}
                {p.source === "override" && (
                  <button type="button" className="btn small" disabled={busy} onClick={() => onRemove(p)} aria-label={`Remove your price of ${p.model}`} data-testid="usage-price-remove">
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The form that sets one model's price; Escape or Cancel closes it unsaved. */
function PriceEditor({ price, busy, onSave, onCancel }: {
  price: ModelPrice;
  busy: boolean;
  onSave(v: PriceOverride): void;
  onCancel(): void;
}) {
  const [form, setForm] = useState(() => priceForm(price));
  const [local, setLocal] = useState<{ field: PriceField; error: string } | null>(null);
  const first = useRef<HTMLInputElement>(null);
  const id = useId();
  useEffect(() => first.current?.focus(), []);
  const edit = (p: Partial<PriceForm>) => {
    setForm({ ...form, ...p });
    setLocal(null);
  };
  const input = (key: PriceField, label: string, ref?: React.Ref<HTMLInputElement>) => (
    <label>
      {label}
      <input
        ref={ref}
        inputMode="decimal"
        value={form[key]}
        onChange={(e) => edit({ [key]: e.target.value })}
        placeholder={key === "cached" ? "as input" : undefined}
        aria-invalid={local?.field === key || undefined}
        aria-describedby={local?.field === key ? `${id}-error` : undefined}
        data-testid={`usage-price-${key}`}
      />
    </label>
  );
  return (
    <form
      className="form usage-price-form"
      aria-labelledby={`${id}-title`}
      data-testid="usage-price-form"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          onCancel();
        }
      }}
      onSubmit={(e) => {
        e.preventDefault();
        const v = overrideOf(form);
        if ("error" in v) {
          setLocal(v);
          return;
        }
        onSave(v);
      }}
    >
      <h3 id={`${id}-title`}>The price of {price.model}, in US dollars per million tokens</h3>
      <div className="form-row">
        {input("input", "Input", first)}
        {input("output", "Output")}
        {input("cached", "Cached input (optional)")}
      </div>
      {local && (
        <p className="error" role="alert" id={`${id}-error`} data-testid="usage-price-error">
          Not saved: {local.error}
        </p>
      )}
      <div className="row">
        <button type="submit" className="btn primary" disabled={busy} data-testid="usage-price-save">
          Save the price
        </button>
        <button type="button" className="btn" onClick={onCancel} data-testid="usage-price-cancel">
          Cancel
        </button>
      </div>
    </form>
  );
}

export function UsagePricesCard({ onChange }: { onChange?: () => void }) {
  const s = useAsync(api.usagePrices, []);
  const [editing, setEditing] = useState<ModelPrice | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const opener = useRef<HTMLButtonElement | null>(null);
  const pending = useRef("");
  // The focus goes back to the button that opened the form once the form
  // is gone and the buttons are enabled again (after the render).
  const [refocus, setRefocus] = useState(0);
  useEffect(() => {
    if (refocus) opener.current?.focus();
  }, [refocus]);
  const { busy, err, save } = useSave(s, () => {
    setEditing(null);
    setDone(pending.current);
    setRefocus((n) => n + 1);
    onChange?.();
  });
  if (!s.data) return s.error ? <ErrorBox title="Could not load the prices" error={s.error} onRetry={s.reload} /> : null;
  const prices = s.data;
  const close = () => {
    setEditing(null);
    setRefocus((n) => n + 1);
  };
  return (
    <section className="card" data-testid="usage-prices" aria-labelledby="usage-prices-title">
      <h2 id="usage-prices-title">Prices</h2>
      <p className="muted small-text">
        What each call is costed at, in US dollars per million tokens: from the price list of {prices.list_date} ({prices.list_source}), or the
        price you set for a model, which replaces the list's from the next call on. Local models cost nothing; a model without a known price
        shows “price unknown” until you set one.
      </p>
      <PricesTable
        prices={prices}
        busy={busy}
        onEdit={(p, button) => {
          opener.current = button;
          setDone(null);
          setEditing(p);
        }}
        onRemove={(p) => {
          setDone(null);
          pending.current = `Removed your price of ${p.model}: it has the list's price again, or none.`;
          save(api.putUsagePrices({ overrides: withOverride(overridesOf(prices), p.model, null) }));
        }}
      />
      {editing && (
        <PriceEditor
          key={editing.model}
          price={editing}
          busy={busy}
          onCancel={close}
          onSave={(v) => {
            pending.current = `Saved your price of ${editing.model}.`;
            save(api.putUsagePrices({ overrides: withOverride(overridesOf(prices), editing.model, v) }));
          }}
        />
      )}
      {done && (
        <p className="muted" role="status" data-testid="usage-price-saved">
          {done}
        </p>
      )}
      {err !== null && <ErrorBox title="Not saved" error={err} testid="usage-price-error" />}
    </section>
  );
}
