// The small mark of a field's evidence status, the same in the extraction
// panel and the data view: a subtle check (found), an amber "?" (found in
// several places), a red "!" with "not found in document", a pencil with
// "edited by you". The symbol is drawn by CSS so that a data cell's text
// stays its value; the status is its accessible name and tooltip.

import type { MouseEvent } from "react";
import type { FieldEvidence } from "../api/types";
import { evidenceTitle, markOf } from "./evidence";
import "./evidence.css";

export interface EvidenceMarkProps {
  evidence: FieldEvidence;
  /** The field's path, named in the accessible label. */
  path?: string;
  /** Only the symbol, for table cells. */
  compact?: boolean;
  /** Makes the mark a link (the data view: the document with the field selected). */
  href?: string;
}

export function EvidenceMark({ evidence, path, compact, href }: EvidenceMarkProps) {
  const mark = markOf(evidence.status);
  const title = evidenceTitle(evidence);
  const label = `${path ? path + ": " : ""}${mark.label}`;
  const cls = `ev-mark ev-${evidence.status}${compact ? " compact" : ""}`;
  if (href) {
    return (
      <a
        className={cls}
        href={href}
        title={`${title}. Open the document at this field.`}
        aria-label={`${label}; open the document at this field`}
        data-testid="evidence-mark"
        data-status={evidence.status}
        data-symbol={mark.symbol}
        onClick={(e: MouseEvent) => e.stopPropagation()}
        onDoubleClick={(e: MouseEvent) => e.stopPropagation()}
      />
    );
  }
  return (
    <span className={cls} role="img" title={title} aria-label={label} data-testid="evidence-mark" data-status={evidence.status} data-symbol={mark.symbol}>
      {!compact && mark.text && <span className="ev-text">{mark.text}</span>}
    </span>
  );
}
