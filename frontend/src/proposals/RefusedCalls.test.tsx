import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RefusedCalls } from "./RefusedCalls";

const refused = [
  { tool: "create_prompt", reason: 'an unattended run may not link to schema "invoice" (sch_1): it did not create it in this run' },
  { tool: "update_prompt", reason: 'an unattended run may not link to tag "mine" (tag_1)' },
];

describe("refused calls of an unattended run", () => {
  it("lists each refused call with its reason, for a proposal", () => {
    const html = renderToString(<RefusedCalls refused={refused} />);
    expect(html).toContain('data-testid="auto-create-refused"');
    expect(html).toContain("Review with care: the run tried 2 changes");
    expect(html).toContain("<code>create_prompt</code>");
    expect(html).toContain("link to schema &quot;invoice&quot;");
    expect(html).toContain("<code>update_prompt</code>");
  });

  it("lists them for a run that failed too, saying to look before running again", () => {
    const html = renderToString(<RefusedCalls refused={refused.slice(0, 1)} failed />);
    expect(html).toContain("The run tried one change");
    expect(html).toContain("before running auto-create again");
    expect(html).toContain("<code>create_prompt</code>");
  });

  it("shows nothing when nothing was refused", () => {
    expect(renderToString(<RefusedCalls refused={[]} />)).toBe("");
    expect(renderToString(<RefusedCalls />)).toBe("");
  });
});
