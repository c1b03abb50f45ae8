import { renderToString } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { formOf } from "./inbox";
import { InboxSettingsView, saveInbox } from "./InboxSettings";
import type { InboxSettings } from "./types";

const settings: InboxSettings = {
  folder: "/home/me/Scans",
  after: "move",
  done_folder: "",
  tag_subfolders: true,
  ignore: ["*.bak"],
  stability_seconds: 5,
  poll: "auto",
  source: "settings",
};

const view = (over: Partial<Parameters<typeof InboxSettingsView>[0]> = {}) =>
  renderToString(
    <InboxSettingsView settings={settings} form={formOf(settings)} error={null} busy={false} saved={false} onEdit={() => {}} onSave={() => {}} {...over} />,
  );

/** The opening tag of the element with this data-testid. */
const tag = (html: string, testid: string) => html.match(new RegExp(`<[^>]*data-testid="${testid}"[^>]*>`))?.[0] ?? "";

afterEach(() => vi.unstubAllGlobals());

describe("the inbox settings card", () => {
  it("shows every setting with a label, editable", () => {
    const html = view();
    for (const label of ["Inbox folder", "After a file is imported", "Done folder", "Tag documents with the names of their subfolders", "Also ignore", "Stability delay", "Polling"]) {
      expect(html).toContain(label);
    }
    expect(tag(html, "inbox-folder")).toContain('value="/home/me/Scans"');
    expect(tag(html, "inbox-folder")).not.toContain("disabled");
    expect(tag(html, "inbox-after-move")).toContain("checked");
    expect(tag(html, "inbox-done-folder")).not.toContain("disabled");
    expect(html).toContain("*.bak");
  });

  it("leaves the done folder alone unless files are moved", () => {
    const html = view({ form: { ...formOf(settings), after: "keep" } });
    expect(tag(html, "inbox-done-folder")).toContain("disabled");
  });

  it("is read-only, and says why, when the --inbox flag set the folder", () => {
    const html = view({ settings: { ...settings, source: "flag" } });
    expect(html).toContain("docent --serve --inbox DIR");
    for (const id of ["inbox-folder", "inbox-after-keep", "inbox-tag-subfolders", "inbox-ignore", "inbox-stability", "inbox-poll", "inbox-save"]) {
      expect(tag(html, id), id).toContain("disabled");
    }
  });

  it("shows a refused value's error on its field, tied to the input", () => {
    const html = view({ error: { field: "stability_seconds", error: { message: "stability_seconds -1: want 0 or more", code: "invalid" } } });
    expect(tag(html, "inbox-stability")).toContain('aria-invalid="true"');
    expect(tag(html, "inbox-stability")).toMatch(/aria-describedby="[^"]*inbox-error-stability_seconds/);
    expect(html).toMatch(/id="inbox-error-stability_seconds"[^>]*>.*want 0 or more/);
    expect(tag(html, "inbox-folder")).not.toContain("aria-invalid");
  });
});

describe("saveInbox", () => {
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

  it("sends the form to PUT /api/settings/inbox and gives back what was stored", async () => {
    const fetch = vi.fn(async () => json(200, { ...settings, folder: "/srv/in" }));
    vi.stubGlobal("fetch", fetch);
    const got = await saveInbox({ ...formOf(settings), folder: " /srv/in " });
    expect(got).toEqual({ settings: { ...settings, folder: "/srv/in" } });
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/settings/inbox");
    expect(init.method).toBe("PUT");
    expect(JSON.parse(String(init.body))).toMatchObject({ folder: "/srv/in", after: "move", ignore: ["*.bak"], stability_seconds: 5 });
  });

  it("puts the server's refusal on the field it names", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => json(400, { error: "folder /nope: no such folder", code: "invalid" })));
    expect(await saveInbox({ ...formOf(settings), folder: "/nope" })).toEqual({
      field: "folder",
      error: { message: "folder /nope: no such folder", code: "invalid", status: 400 },
    });
  });

  it("refuses a delay that is not a number without asking the server", async () => {
    const fetch = vi.fn();
    vi.stubGlobal("fetch", fetch);
    expect(await saveInbox({ ...formOf(settings), stability_seconds: "soon" })).toMatchObject({ field: "stability_seconds" });
    expect(fetch).not.toHaveBeenCalled();
  });
});
