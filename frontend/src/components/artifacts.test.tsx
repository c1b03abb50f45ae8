import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api/http";
import { errorInput } from "../lib/errors";
import type { AsyncState } from "../lib/useAsync";
import { ArtifactForm } from "./ArtifactForm";
import { ArtifactList } from "./ArtifactPage";
import type { ArtifactKind } from "./artifactKind";

const kind: ArtifactKind = { noun: "prompt", title: "Prompts", route: "prompts", newLabel: "New prompt", none: "No prompts yet." };

interface Item {
  id: string;
  name: string;
}

function state(p: Partial<AsyncState<Item[]>>): AsyncState<Item[]> {
  return { data: undefined, error: null, loading: false, reload: () => {}, setData: () => {}, ...p };
}

function page(list: AsyncState<Item[]>, active?: string): string {
  return renderToString(
    <ArtifactList kind={kind} list={list} active={active} idOf={(x) => x.id} row={(x) => x.name} detail={<p>the detail</p>} />,
  );
}

describe("ArtifactList", () => {
  it("lists the items, each linked to its page, the chosen one active, with the create button", () => {
    const html = page(state({ data: [{ id: "p1", name: "Invoice" }, { id: "p 2", name: "Receipt" }] }), "p 2");
    expect(html).toContain("<h1>Prompts</h1>");
    expect(html).toMatch(/<a class="btn primary" href="#\/prompts\/new" data-testid="artifact-new">New prompt<\/a>/);
    const rows = [...html.matchAll(/<a href="([^"]*)" class="([^"]*)" data-testid="prompt-row">([^<]*)<\/a>/g)].map((m) => [m[1], m[2], m[3]]);
    expect(rows).toEqual([
      ["#/prompts/p1", "", "Invoice"],
      ["#/prompts/p%202", "active", "Receipt"],
    ]);
    expect(html).toContain("<p>the detail</p>");
    expect(html).not.toContain("No prompts yet.");
  });

  it("says when there are none, and shows a spinner while loading", () => {
    expect(page(state({ data: [] }))).toContain('<p class="muted">No prompts yet.</p>');
    const loading = page(state({}));
    expect(loading).toContain('role="status"');
    expect(loading).not.toContain("No prompts yet.");
  });

  it("shows a failed load as an error box classified by its code, with Retry where it helps", () => {
    const html = page(state({ error: errorInput(new ApiError(0, "Cannot reach the Docent server.", "network")) }));
    expect(html).toContain('data-kind="network"');
    expect(html).toContain('data-testid="error-retry"');
    expect(html).not.toContain('role="status"');
  });
});

describe("ArtifactForm", () => {
  const form = (p: Partial<Parameters<typeof ArtifactForm>[0]>) =>
    renderToString(
      <ArtifactForm kind={kind} saveLabel="Create prompt" onSubmit={() => {}} onCancel={() => {}} saving={false} {...p}>
        <input data-testid="prompt-name" />
      </ArtifactForm>,
    );

  it("names its form and Save by the kind and keeps the inputs before the buttons", () => {
    const html = form({});
    expect(html).toMatch(/^<form class="form" data-testid="prompt-form"><input data-testid="prompt-name"\/>/);
    expect(html).toMatch(/<button type="submit" class="btn primary" data-testid="prompt-save">Create prompt<\/button>/);
    expect(html).toContain(">Cancel</button>");
  });

  it("turns Save off while saving or while the input has problems, and shows the form's error", () => {
    expect(form({ saving: true })).toMatch(/<button type="submit" class="btn primary" disabled="" data-testid="prompt-save">Saving…<\/button>/);
    expect(form({ canSave: false })).toMatch(/disabled="" data-testid="prompt-save">Create prompt</);
    expect(form({ wide: true, formError: "A prompt named `Invoice` exists." })).toMatch(
      /^<form class="form wide".*<div class="field-error"><span>A prompt named <\/span><code>Invoice<\/code><span> exists.<\/span><\/div><div class="row">/,
    );
  });
});
