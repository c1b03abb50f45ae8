// The OCR languages setting: which Tesseract language data reads scans and
// photos ("deu+eng"), the languages installed, and the default that
// applies without one (GET/PUT /api/settings/ocr).

import { useState } from "react";
import { api } from "../api/routes";
import { ErrorBox } from "../components/common";
import { useAsync, useSave } from "../lib/useAsync";

export function OcrLanguages() {
  const s = useAsync(api.getOcrSettings, []);
  const [typed, setTyped] = useState<string | null>(null);
  const { busy, err, save: saving } = useSave(s, () => setTyped(null));
  if (!s.data) return s.error ? <ErrorBox error={s.error} onRetry={s.reload} /> : null;
  const d = s.data;
  const value = typed ?? d.saved;
  const save = (lang: string) => saving(api.putOcrSettings({ lang }));
  return (
    <section className="card" data-testid="ocr-settings">
      <h2>Text recognition (OCR)</h2>
      <p className="muted">
        {d.engine ? (
          <>
            {d.engine}, with the language data {d.installed.join(", ") || "none"}. Scans and photos are read in <strong data-testid="ocr-lang">{d.lang}</strong>.
          </>
        ) : (
          <>No OCR engine: {d.error}</>
        )}
      </p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          save(value);
        }}
      >
        <label>
          Languages{" "}
          <input value={value} placeholder={d.default} onChange={(e) => setTyped(e.target.value)} data-testid="ocr-lang-input" aria-describedby="ocr-lang-help" />
        </label>
        <button type="submit" className="btn small primary" disabled={busy}>
          Save
        </button>
        {d.saved && (
          <button type="button" className="btn small" disabled={busy} onClick={() => save("")}>
            Use the default ({d.default})
          </button>
        )}
      </form>
      <p className="muted" id="ocr-lang-help">
        Tesseract's names joined by +, e.g. deu+eng. Empty: {d.default} (DOCENT_OCR_LANG, else your locale's language and English). Read a document again in other languages with{" "}
        <code>docent ocr DOC --lang …</code>.
      </p>
      {err !== null && <ErrorBox title="Not saved" error={err} />}
    </section>
  );
}
