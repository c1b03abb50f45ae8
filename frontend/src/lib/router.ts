// Hash routing (#/documents, #/documents/ID?page=2, #/schemas/ID, ...): works
// the same in the browser and in the desktop window without server routes.

import { useEffect, useState } from "react";

export interface Route {
  /** Path segments after "#/", decoded. */
  parts: string[];
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, "");
  const [path, q = ""] = raw.split("?", 2);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { parts: parts.length ? parts : ["documents"], query: new URLSearchParams(q) };
}

export function href(...parts: (string | number)[]): string {
  return "#/" + parts.map((p) => encodeURIComponent(String(p))).join("/");
}

export function navigate(to: string): void {
  if (window.location.hash !== to) window.location.hash = to;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(window.location.hash));
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return route;
}

/**
 * Where a resource link of assistant text (`schema_rev:ID`, `schema:ID`,
 * `prompt_rev:ID`, `prompt:ID`, `tag:ID`, `doc:ID`, `doc:ID#page=N`) points
 * inside the app, or null when it is not one.
 */
export function resourceTarget(link: string): { hash: string; docId?: string; page?: number } | null {
  const m = /^(schema_rev|schema|prompt_rev|prompt|tag|doc):([^#\s]+)(?:#page=(\d+))?$/.exec(link.trim());
  if (!m) return null;
  const [, kind, id, page] = m;
  switch (kind) {
    case "schema_rev":
      return { hash: href("schema-revisions", id) };
    case "schema":
      return { hash: href("schemas", id) };
    case "prompt_rev":
      return { hash: href("prompt-revisions", id) };
    case "prompt":
      return { hash: href("prompts", id) };
    case "tag":
      return { hash: href("tags", id) };
    default: {
      const n = page ? Number(page) : undefined;
      return { hash: href("documents", id) + (n ? `?page=${n}` : ""), docId: id, page: n };
    }
  }
}
