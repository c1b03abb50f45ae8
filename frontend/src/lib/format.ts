// One number and date format for the whole UI: Intl with the user's locale.
//
// The desktop window's WebKit may run without locale data, and then
// `new Intl.NumberFormat(undefined)` formats 1234567 as "1234567": the
// thousands separators disappear. The locale is therefore chosen once,
// explicitly: the first of navigator.languages, navigator.language and
// "en-US" whose formatter groups digits; if none does, digits are grouped
// by hand with ",".

let chosen: string | null = null;

function groups(locale: string | undefined): boolean {
  try {
    return /\D/.test(new Intl.NumberFormat(locale).format(1234567));
  } catch {
    return false;
  }
}

/** The locale every formatter here uses (cached after the first call). */
export function userLocale(candidates?: (string | undefined)[]): string {
  if (chosen && !candidates) return chosen;
  const nav = typeof navigator !== "undefined" ? navigator : undefined;
  const list = candidates ?? [...(nav?.languages ?? []), nav?.language, "en-US"];
  let pick = "en-US";
  for (const c of list) {
    if (c && groups(c)) {
      pick = c;
      break;
    }
  }
  if (!candidates) chosen = pick;
  return pick;
}

/** For tests: forget the cached locale. */
export function resetLocaleForTests(): void {
  chosen = null;
}

function groupByHand(s: string): string {
  return s.replace(/^(-?\d+)/, (d) => d.replace(/\B(?=(\d{3})+(?!\d))/g, ","));
}

/** A count with thousands separators: 12,345 (in the user's locale). */
export function formatCount(n: number, locale = userLocale()): string {
  if (!Number.isFinite(n)) return String(n);
  const s = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(n);
  return Math.abs(n) >= 1000 && !/\D/.test(s.replace(/^-/, "")) ? groupByHand(s) : s;
}

/** A decimal number with at most `digits` fraction digits: 1.5, 1 234,5. */
export function formatDecimal(n: number, digits = 1, locale = userLocale()): string {
  if (!Number.isFinite(n)) return String(n);
  return new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: 0 }).format(n);
}

/** Seconds from milliseconds, one decimal: "2.4". */
export function formatSeconds(ms: number, locale = userLocale()): string {
  return new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(Math.max(0, ms) / 1000);
}

/** A date and time: "12 Mar 2025, 14:05" in the user's locale; "" for none, the text itself when it is not a date. */
export function formatDateTime(s: string | undefined, locale = userLocale()): string {
  if (!s) return "";
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) return s;
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(d);
}

/** A byte size: 512 B, 14 KB, 3.2 MB. */
export function formatBytes(n: number, locale = userLocale()): string {
  if (n < 1024) return `${formatCount(n, locale)} B`;
  if (n < 1024 * 1024) return `${formatDecimal(n / 1024, 0, locale)} KB`;
  return `${formatDecimal(n / 1024 / 1024, 1, locale)} MB`;
}
