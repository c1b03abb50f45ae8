// The words a tool card says about a call's outcome: a refusal told as the
// model's step, a rejection, a result's preview without its ids. What the
// call will do is the server's summary (ProposalView.tsx).

/** A failed call, told as the model's step. */
export function refusalText(title: string, error: string): string {
  return `The model tried to ${title ? title[0].toLowerCase() + title.slice(1) : title}; Docent refused: ${error}`;
}

/** What a rejected call's card says. */
export const REJECTED_TEXT = "You rejected this.";

const ID_IN_PARENS = /\s*\((?:doc|tag|sch|srv|prm|prv|ext|thr|evl|turn)_[0-9A-Za-z]+\)/g;

/**
 * A tool result's preview for people: the ids it names in parentheses
 * ("created schema Invoice v1 (srv_01…)") are taken out of the text and
 * returned apart (for a tooltip), and it starts with a capital.
 */
export function cleanPreview(preview: string): { text: string; ids: string[] } {
  const ids = [...preview.matchAll(ID_IN_PARENS)].map((m) => m[0].trim().slice(1, -1));
  const text = preview.replace(ID_IN_PARENS, "").trim();
  return { text: text ? text[0].toUpperCase() + text.slice(1) : text, ids };
}
