// The last evaluation of a prompt (`docent eval`): how many known values it
// got right, per field, and against its baseline. The UI only shows runs;
// they are made on the command line, where the ground truth lives.

import { api } from "../api/routes.gen";
import { formatDate } from "../components/common";
import { useAsync } from "../lib/useAsync";
import type { EvalField, EvalReport } from "../api/types";

const pct = (x: number) => `${(x * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;

/** Fields that missed, worst first: what to work on next. */
export function weakestFields(r: EvalReport, n = 5): EvalField[] {
  return r.fields
    .filter((f) => f.exact < f.known || f.extra > 0)
    .sort((a, b) => a.accuracy - b.accuracy || b.known - a.known || a.field.localeCompare(b.field))
    .slice(0, n);
}

export function LastEvaluation({ promptId }: { promptId: string }) {
  const evals = useAsync(() => api.listEvaluations(promptId).then((l) => l.evaluations), [promptId]);
  const last = evals.data?.[0];
  if (!last) return null; // none yet, or not loaded: nothing to say
  const r = last.report;
  const o = r.overall;
  const weak = weakestFields(r);
  return (
    <section className="last-evaluation" data-testid="last-evaluation" aria-label="Last evaluation">
      <h3>Last evaluation</h3>
      <p>
        v{r.version} with {r.model} on {r.documents.length.toLocaleString()} documents ({r.source === "truth" ? "ground truth" : "your corrections"}),{" "}
        {formatDate(last.created_at)}: <strong data-testid="evaluation-accuracy">{o.exact.toLocaleString()} of {o.known.toLocaleString()} exact ({pct(o.accuracy)})</strong>, {o.wrong} wrong,{" "}
        {o.missing} missing, {o.extra} extra; {pct(o.grounded_share)} of the exact values found in their document.
        {r.baseline && (
          <>
            {" "}
            Against the run before: {r.baseline.exact_change >= 0 ? "+" : ""}
            {r.baseline.exact_change} exact.
          </>
        )}
      </p>
      {weak.length > 0 && (
        <ul>
          {weak.map((f) => (
            <li key={f.field}>
              <code>{f.field}</code>: {f.exact} of {f.known} exact
              {f.wrong ? `, ${f.wrong} wrong` : ""}
              {f.missing ? `, ${f.missing} missing` : ""}
              {f.extra ? `, ${f.extra} extra` : ""}
            </li>
          ))}
        </ul>
      )}
      <p className="muted">
        Run again with <code>docent eval --prompt … --baseline {last.evaluation_id}</code>.
      </p>
    </section>
  );
}
