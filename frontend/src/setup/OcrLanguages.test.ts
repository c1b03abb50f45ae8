import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { OcrSettings } from "../api/types";
import { EngineSummary, engineLines } from "./OcrLanguages";

const base: OcrSettings = {
  lang: "eng",
  saved: "",
  default: "eng",
  engine: "tesseract 5.3.0",
  installed: ["eng"],
  vision_model: "",
  vision_all: false,
  photo_engine: "tesseract 5.3.0 best_int",
  pdf_engine: "tesseract 5.3.0",
  ppocr: "",
};

describe("engineLines", () => {
  it("says which engine reads photos and which PDF pages, and why PP-OCR is off", () => {
    expect(engineLines({ ...base, ppocr_note: "ONNX Runtime is not installed at /x (scripts/run installs it)" })).toEqual([
      "Photos are read by tesseract 5.3.0 best_int, PDF pages by tesseract 5.3.0.",
      "PP-OCR is off. ONNX Runtime is not installed at /x (scripts/run installs it)",
    ]);
  });

  it("names PP-OCR where it reads, and what it leaves to Tesseract", () => {
    const pp = "ppocr PP-OCRv4 onnxruntime 1.30.0";
    expect(engineLines({ ...base, photo_engine: pp, ppocr: pp, ppocr_note: "Tesseract reads PDF pages: why" })).toEqual([
      `Photos are read by ${pp}, PDF pages by tesseract 5.3.0.`,
      `PP-OCR: ${pp}. Tesseract reads PDF pages: why`,
    ]);
    expect(engineLines({ ...base, photo_engine: pp, pdf_engine: pp, ppocr: pp })[0]).toBe(`Photos and PDF pages are read by ${pp}.`);
  });

  it("says where PP-OCR's runtime and models are read from", () => {
    const pp = "ppocr PP-OCRv4 onnxruntime 1.30.0";
    const from = "ONNX Runtime /usr/lib/docent/libonnxruntime.so, models /usr/lib/docent/ppocr/PP-OCRv4";
    expect(engineLines({ ...base, photo_engine: pp, pdf_engine: pp, ppocr: pp, ppocr_from: from })[1]).toBe(`PP-OCR: ${pp} (${from}).`);
  });

  it("says only PP-OCR's state when no engine is installed", () => {
    expect(engineLines({ ...base, engine: "", photo_engine: "", pdf_engine: "", error: "tesseract is not installed" })).toEqual(["PP-OCR is off."]);
  });
});

describe("EngineSummary", () => {
  const pp = "ppocr PP-OCRv4 onnxruntime 1.30.0";
  const text = (d: OcrSettings) => renderToString(createElement(EngineSummary, { d })).replace(/<[^>]+>/g, "");

  it("says PP-OCR reads without Tesseract, not that there is no engine", () => {
    expect(text({ ...base, engine: "", installed: [], photo_engine: pp, pdf_engine: pp, ppocr: pp })).toBe(
      "Tesseract is not installed. Scans and photos are read in eng.",
    );
  });

  it("names Tesseract and its data, or says why no engine reads", () => {
    expect(text(base)).toBe("tesseract 5.3.0, with the language data eng. Scans and photos are read in eng.");
    expect(text({ ...base, engine: "", photo_engine: "", pdf_engine: "", error: "OCR needs Tesseract" })).toBe("No OCR engine: OCR needs Tesseract");
  });
});
