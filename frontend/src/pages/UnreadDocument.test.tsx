import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { DocumentInfo } from "../api/types";
import { FailedDocument } from "./UnreadDocument";

function failed(error: string, error_code?: "password_required"): DocumentInfo {
  return {
    id: "doc_1", name: "locked.pdf", media_type: "application/pdf", size: 1041, sha256: "", pages: 0,
    status: "failed", error, ...(error_code ? { error_code } : {}),
    tag_ids: [], metadata: {}, created_at: "", updated_at: "", auto_create_status: "none",
  };
}

const render = (doc: DocumentInfo) => renderToString(<FailedDocument doc={doc} onRead={() => {}} />);

describe("a failed document", () => {
  it("asks for the password when the server's code says the file needs it", () => {
    const html = render(failed("encrypted: password required (import it again with --password)", "password_required"));
    expect(html).toContain('data-testid="document-password"');
  });

  it("asks for it by the code, not by the words of the error", () => {
    // A wrong password's words name no requirement, yet it needs the password.
    expect(render(failed("encrypted: wrong password", "password_required"))).toContain('data-testid="document-password"');
    // A message that mentions a password but has no code offers no password form.
    const html = render(failed("malformed PDF: the password dictionary is broken"));
    expect(html).not.toContain('data-testid="document-password"');
    expect(html).toContain("Import a repaired copy");
  });
});
