// Names for ids: "Invoice v2" for sch_…/srv_…, a prompt's name for
// prm_…/prv_…, a tag's name and colour, a document's name. One cache for
// the whole UI, filled from the list routes and, for a revision or a
// document the lists do not hold, from one request each (made once).
//
//   const names = useArtifactNames();
//   names.schema("srv_01…")?.label   // "Invoice v2" (undefined until known)
//   names.prompt(extraction.prompt_revid)?.label
//
// Lookups happen during render and return undefined until the answer
// arrives; the hook re-renders then. invalidateNames() drops the lists
// (after something was created, renamed or deleted).

import { useEffect, useMemo, useSyncExternalStore } from "react";
import { api } from "../api/routes.gen";
import type { DocumentInfo, PromptRevision, SchemaRevision, Tag } from "../api/types";
import { href } from "./router";

export interface NamedRef {
  kind: "schema" | "prompt";
  /** schema_id / prompt_id. */
  id: string;
  /** The revision meant, when the reference named one. */
  revid?: string;
  name: string;
  version?: number;
  /** "Invoice v2" (or the name alone when the version is unknown). */
  label: string;
  /** Where the app shows it: the revision when one was named, else the artifact. */
  href: string;
}

export interface ArtifactNames {
  /** A schema by schema_id, schema_revid or name; `version` picks the label's version (a prompt's schema_version). */
  schema(ref: string | undefined | null, version?: number): NamedRef | undefined;
  /** A prompt by prompt_id, prompt_revid or name. */
  prompt(ref: string | undefined | null): NamedRef | undefined;
  /** A tag by id or name (any case). */
  tag(ref: string | undefined | null): Tag | undefined;
  document(id: string | undefined | null): DocumentInfo | undefined;
  /** The lists have loaded. */
  ready: boolean;
}

interface Store {
  schemas?: SchemaRevision[];
  prompts?: PromptRevision[];
  tags?: Tag[];
  listsLoading: boolean;
  schemaRevs: Map<string, SchemaRevision | null>;
  promptRevs: Map<string, PromptRevision | null>;
  docs: Map<string, DocumentInfo | null>;
}

const store: Store = { listsLoading: false, schemaRevs: new Map(), promptRevs: new Map(), docs: new Map() };
let version = 0;
const listeners = new Set<() => void>();

function changed(): void {
  version++;
  listeners.forEach((l) => l());
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

function loadLists(): void {
  if (store.listsLoading || (store.schemas && store.prompts && store.tags)) return;
  store.listsLoading = true;
  void Promise.all([api.listSchemas().then((l) => l.schemas).catch(() => []), api.listPrompts().then((l) => l.prompts).catch(() => []), api.listTags().then((l) => l.tags).catch(() => [])]).then(([s, p, t]) => {
    store.schemas = s;
    store.prompts = p;
    store.tags = t;
    store.listsLoading = false;
    changed();
  });
}

/** Forget the lists (something was created, renamed or deleted); revisions stay, they never change. */
export function invalidateNames(): void {
  store.schemas = store.prompts = store.tags = undefined;
  store.listsLoading = false;
  // Documents can be renamed.
  store.docs.clear();
  loadLists();
  changed();
}

function fetchOnce<T>(map: Map<string, T | null>, key: string, fn: () => Promise<T>): void {
  if (map.has(key)) return;
  map.set(key, null);
  // After the render that asked: a lookup must not set state during render.
  queueMicrotask(() =>
    fn().then(
      (v) => {
        map.set(key, v);
        changed();
      },
      () => {
        /* stays null: unknown */
      },
    ),
  );
}

function label(name: string, v?: number): string {
  return v ? `${name} v${v}` : name;
}

function schemaRef(r: SchemaRevision, version: number | undefined, byRevision: boolean): NamedRef {
  const v = version ?? r.version;
  return {
    kind: "schema",
    id: r.schema_id,
    ...(byRevision ? { revid: r.schema_revid } : {}),
    name: r.name,
    version: v,
    label: label(r.name, v),
    href: byRevision ? href("schema-revisions", r.schema_revid) : href("schemas", r.schema_id),
  };
}

function promptRef(r: PromptRevision, byRevision: boolean): NamedRef {
  return {
    kind: "prompt",
    id: r.prompt_id,
    ...(byRevision ? { revid: r.prompt_revid } : {}),
    name: r.name,
    version: r.version,
    label: label(r.name, r.version),
    href: byRevision ? href("prompt-revisions", r.prompt_revid) : href("prompts", r.prompt_id),
  };
}

function lookupSchema(ref: string | undefined | null, version?: number): NamedRef | undefined {
  if (!ref) return undefined;
  const list = store.schemas ?? [];
  const latest = list.find((s) => s.schema_id === ref) ?? list.find((s) => s.schema_revid === ref);
  if (latest) return schemaRef(latest, version, latest.schema_revid === ref);
  const byName = list.find((s) => s.name === ref) ?? list.find((s) => s.name.toLowerCase() === ref.toLowerCase());
  if (byName) return schemaRef(byName, version, false);
  const known = store.schemaRevs.get(ref);
  if (known) return schemaRef(known, version, known.schema_revid === ref);
  if (/^srv_/.test(ref)) fetchOnce(store.schemaRevs, ref, () => api.getSchemaRevision(ref));
  else if (/^sch_/.test(ref) && store.schemas) fetchOnce(store.schemaRevs, ref, () => api.getSchema(ref));
  return undefined;
}

function lookupPrompt(ref: string | undefined | null): NamedRef | undefined {
  if (!ref) return undefined;
  const list = store.prompts ?? [];
  const latest = list.find((p) => p.prompt_id === ref) ?? list.find((p) => p.prompt_revid === ref);
  if (latest) return promptRef(latest, latest.prompt_revid === ref);
  const byName = list.find((p) => p.name === ref) ?? list.find((p) => p.name.toLowerCase() === ref.toLowerCase());
  if (byName) return promptRef(byName, false);
  const known = store.promptRevs.get(ref);
  if (known) return promptRef(known, known.prompt_revid === ref);
  if (/^prv_/.test(ref)) fetchOnce(store.promptRevs, ref, () => api.getPromptRevision(ref));
  else if (/^prm_/.test(ref) && store.prompts) fetchOnce(store.promptRevs, ref, () => api.getPrompt(ref));
  return undefined;
}

function lookupTag(ref: string | undefined | null): Tag | undefined {
  if (!ref) return undefined;
  const list = store.tags ?? [];
  return list.find((t) => t.id === ref) ?? list.find((t) => t.name.toLowerCase() === ref.toLowerCase());
}

function lookupDocument(id: string | undefined | null): DocumentInfo | undefined {
  if (!id) return undefined;
  const d = store.docs.get(id);
  if (d) return d;
  fetchOnce(store.docs, id, () => api.getDocument(id));
  return undefined;
}

const names: Omit<ArtifactNames, "ready"> = {
  schema: lookupSchema,
  prompt: lookupPrompt,
  tag: lookupTag,
  document: lookupDocument,
};

/** Names for ids, re-rendering as they arrive (see the top of this file). */
export function useArtifactNames(): ArtifactNames {
  const v = useSyncExternalStore(subscribe, () => version, () => version);
  useEffect(loadLists, []);
  // One object per answer that arrived: components can memoise on it.
  return useMemo(() => ({ ...names, ready: !!(store.schemas && store.prompts && store.tags) }), [v]);
}
