/** A refusal of an unattended auto-create run: a call outside its scope that Docent did not run. */
export interface Refusal {
  tool: string;
  reason: string;
}

/**
 * What an unattended run tried outside its scope and was refused, shown with
 * its proposal and with a run that failed: a run that a document's text
 * steered off its job often fails, and that is when a person most needs to
 * see why.
 */
export function RefusedCalls({ refused, failed }: { refused?: Refusal[]; failed?: boolean }) {
  if (!refused || refused.length === 0) return null;
  const what = refused.length === 1 ? "one change" : `${refused.length} changes`;
  const lead = failed ? "The run tried" : "Review with care: the run tried";
  const then = failed ? "; look at it before running auto-create again" : "";
  const text = `${lead} ${what} outside its own document and what it made, and was refused (the document's text may be telling the model what to do${then}):`;
  return (
    <div className="field-error" data-testid="auto-create-refused">
      {text}
      <ul>
        {refused.map((r, i) => (
          <li key={i}>
            <code>{r.tool}</code>: {r.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}
