// The vision tier of OCR as a setting: a vision model that reads photos and
// the pages Tesseract reads badly (or every page), in the background worker
// of docent --serve and of the desktop app, and in `docent ocr` without
// --vision (GET/PUT /api/settings/ocr: vision_model, vision_all).

import { api } from "../api/routes.gen";
import { ErrorBox } from "../components/common";
import { useAsync, useSave } from "../lib/useAsync";
import type { ModelInfo, OcrSettingsBody } from "../api/types";

/** One model of the picker: its id and what it says of seeing. */
export interface VisionChoice {
  id: string;
  /** "vision" when the provider says the model sees, "no vision" when it lists what the model can do without vision, "" when it says nothing (OpenAI-compatible servers). */
  mark: "vision" | "no vision" | "";
}

/**
 * The picker's models: those that see first, then those the provider says
 * nothing about, then those that cannot see (the server refuses them on
 * save, saying why); the saved model stays listed even when the providers
 * no longer list it.
 */
export function visionChoices(models: ModelInfo[], saved: string): VisionChoice[] {
  const rank = { vision: 0, "": 1, "no vision": 2 } as const;
  const out: VisionChoice[] = models.map((m) => {
    const caps = m.capabilities ?? [];
    const mark: VisionChoice["mark"] = caps.includes("vision") ? "vision" : caps.length > 0 ? "no vision" : "";
    return { id: m.id, mark };
  });
  if (saved && !out.some((c) => c.id === saved)) out.push({ id: saved, mark: "" });
  return out.sort((a, b) => rank[a.mark] - rank[b.mark] || a.id.localeCompare(b.id));
}

export function VisionModel() {
  const s = useAsync(api.getOcrSettings, []);
  const models = useAsync(() => api.models(), []);
  const { busy, err, save: saving } = useSave(s);
  if (!s.data) return s.error ? <ErrorBox error={s.error} onRetry={s.reload} /> : null;
  const d = s.data;
  const choices = visionChoices(models.data?.models ?? [], d.vision_model);
  const save = (body: OcrSettingsBody) => saving(api.putOcrSettings(body));
  return (
    <section className="card" data-testid="vision-settings">
      <h2>Vision model for OCR</h2>
      <p className="muted">
        A model that can see reads receipt photos and the pages Tesseract reads badly, in the background and in <code>docent ocr</code> (its{" "}
        <code>--vision</code> flag wins).
        {d.vision_model ? (
          <>
            {" "}
            Now: <strong data-testid="vision-model">{d.vision_model}</strong>
            {d.vision_all ? ", every page" : ""}.
          </>
        ) : (
          " Now: none, Tesseract reads alone."
        )}
      </p>
      <div className="row">
        <label>
          Model{" "}
          <select value={d.vision_model} disabled={busy} onChange={(e) => save({ vision_model: e.target.value })} data-testid="vision-model-select">
            <option value="">None</option>
            {choices.map((c) => (
              <option key={c.id} value={c.id}>
                {c.mark ? `${c.id} (${c.mark})` : c.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          <input
            type="checkbox"
            checked={d.vision_all}
            disabled={busy || !d.vision_model}
            onChange={(e) => save({ vision_all: e.target.checked })}
            data-testid="vision-all"
          />{" "}
          Read every page
        </label>
      </div>
      {models.error !== null && <p className="muted">The models could not be listed; the saved one stays.</p>}
      {d.vision_error && <ErrorBox title="The vision model cannot be used now; scans wait for it" error={d.vision_error} />}
      {err !== null && <ErrorBox title="Not saved" error={err} />}
    </section>
  );
}
