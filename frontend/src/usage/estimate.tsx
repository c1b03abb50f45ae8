// The estimate of an auto-create batch (POST /api/auto-create/estimate),
// in words, and the dialog that asks before a batch estimated over the
// person's threshold, or whose model has no known price, starts.

import { useEffect, useId, useRef } from "react";
import { formatCount } from "../lib/format";
import { formatUSD, modelLabel } from "./usage";
import type { AutoCreateEstimate } from "./wire";

const isLocal = (e: AutoCreateEstimate) => e.model.startsWith("ollama/");

function costOf(e: AutoCreateEstimate): string {
  if (e.cost_usd === undefined || !e.priced) return "price unknown";
  if (e.cost_usd === 0 && isLocal(e)) return "no cost (a local model)";
  return `about ${formatUSD(e.cost_usd)}`;
}

/** "3 documents with openai/gpt-4o-mini: about 12,400 input and 2,000 output tokens, about $0.04." */
export function estimateText(e: AutoCreateEstimate): string {
  const docs = `${formatCount(e.documents)} ${e.documents === 1 ? "document" : "documents"}`;
  return `${docs} with ${modelLabel(e.model)}: about ${formatCount(e.input_tokens)} input and ${formatCount(e.output_tokens)} output tokens, ${costOf(e)}.`;
}

/** Whether to ask before the batch starts: its estimate is over the threshold, or its price unknown (it may be over). */
export function needsConfirm(e: AutoCreateEstimate): boolean {
  if (e.cost_usd === undefined || !e.priced) return true;
  return e.cost_usd > e.confirm_over_usd;
}

/** Why the dialog asks. */
function reason(e: AutoCreateEstimate): string {
  if (e.cost_usd === undefined || !e.priced)
    return `The price of ${e.model} is unknown, so Docent cannot tell what the batch costs. You can set a price on the Usage page.`;
  if (e.confirm_over_usd > 0) return `That is over ${formatUSD(e.confirm_over_usd)}, the amount above which Docent asks (set on the Usage page).`;
  return "Docent asks before every batch on a hosted model (the amount is set on the Usage page).";
}

/** The dialog's heading and text, apart from its buttons. */
export function EstimateDialogBody({ estimate: e, titleId, descId }: { estimate: AutoCreateEstimate; titleId: string; descId: string }) {
  return (
    <>
      <h2 id={titleId}>{`Start auto-create of ${formatCount(e.documents)} ${e.documents === 1 ? "document" : "documents"}?`}</h2>
      <div id={descId}>
        <p data-testid="auto-create-estimate-text">{estimateText(e)}</p>
        <p>{reason(e)}</p>
      </div>
    </>
  );
}

/**
 * The modal that asks before a batch: Start runs it, Don't start (also
 * Escape) leaves the documents as they are. The safe choice has the focus.
 */
export function EstimateDialog({ estimate, onStart, onCancel }: { estimate: AutoCreateEstimate; onStart(): void; onCancel(): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const descId = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal?.();
    cancel.current?.focus();
  }, []);
  return (
    <dialog
      ref={ref}
      className="estimate-dialog"
      aria-labelledby={titleId}
      aria-describedby={descId}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
      data-testid="auto-create-confirm"
    >
      <EstimateDialogBody estimate={estimate} titleId={titleId} descId={descId} />
      <div className="row">
        <button type="button" className="btn primary" onClick={onStart} data-testid="auto-create-confirm-start">
          Start auto-create
        </button>
        <button type="button" className="btn" ref={cancel} onClick={onCancel} data-testid="auto-create-confirm-cancel">
          Don't start
        </button>
      </div>
    </dialog>
  );
}
