// The OCR languages setting: which Tesseract language data reads scans and
// photos ("deu+eng"), the languages installed, and the default that
// applies without one (GET/PUT /api/settings/ocr); and which engine reads
// photos and which PDF pages, and whether PP-OCR is there, and why not.

import { useState } from "react";
import { api } from "../api/routes.gen";
import type { OcrSettings } from "../api/types";
import { ErrorBox } from "../components/common";
import { useAsync, useSave } from "../lib/useAsync";

// engineLines says which engine reads photos and which PDF pages, and
// PP-OCR's state: installed or not, and why it reads no pages or leaves
// some to Tesseract.
export function engineLines(d: OcrSettings): string[] {
  const lines: string[] = [];
  if (d.photo_engine || d.pdf_engine) {
    lines.push(
      d.photo_engine === d.pdf_engine
        ? `Photos and PDF pages are read by ${d.photo_engine}.`
        : `Photos are read by ${d.photo_engine}, PDF pages by ${d.pdf_engine}.`,
    );
  }
  const note = d.ppocr_note ? ` ${d.ppocr_note}` : "";
  const from = d.ppocr_from ? ` (${d.ppocr_from})` : "";
  lines.push(d.ppocr ? `PP-OCR: ${d.ppocr}${from}.${note}` : `PP-OCR is off.${note}`);
  return lines;
}

// EngineSummary names Tesseract and its language data, or, without it,
// says that PP-OCR reads (the Windows download has no Tesseract; the
// PP-OCR line says what Tesseract would add), or why no engine reads.
export function EngineSummary({ d }: { d: OcrSettings }) {
  const lang = <strong data-testid="ocr-lang">{d.lang}</strong>;
  return (
    <p className="muted">
      {d.engine ? (
        <>
          {d.engine}, with the language data {d.installed.join(", ") || "none"}. Scans and photos are read in {lang}.
        </>
      ) : d.photo_engine ? (
        <>Tesseract is not installed. Scans and photos are read in {lang}.</>
      ) : (
        <>No OCR engine: {d.error}</>
      )}
    </p>
  );
}

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
      <EngineSummary d={d} />
      {engineLines(d).map((l) => (
        <p className="muted" key={l} data-testid="ocr-engines">
          {l}
        </p>
      ))}
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
