// One line for people about a tool call: "Create schema “Invoice” with 3 fields".
// The whole summary (and its wording, which the terminal mirrors) is in
// ../proposals/summary.ts; this is its title.

import { summarizeCall as summarize, type SummaryContext } from "../proposals/summary";

export function summarizeCall(name: string, args: unknown, ctx?: SummaryContext): string {
  return summarize(name, args, ctx).title;
}
