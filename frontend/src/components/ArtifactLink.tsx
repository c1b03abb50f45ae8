// Links that show names, not ids: "Invoice v2" with the id in the tooltip.
// For any page: <SchemaLink refId={p.schema_revid} version={p.schema_version} />,
// <PromptLink refId={x.prompt_revid} />, <TagChip tag={…} />.

import { useArtifactNames } from "../lib/names";
import { href } from "../lib/router";

export function SchemaLink({ refId, version, fallback }: { refId: string | undefined | null; version?: number; fallback?: string }) {
  const names = useArtifactNames();
  if (!refId) return <span className="muted">{fallback ?? "none"}</span>;
  const n = names.schema(refId, version);
  return (
    <a href={n?.href ?? href(/^srv_/.test(refId) ? "schema-revisions" : "schemas", refId)} title={refId} className="artifact-link" data-testid="schema-link">
      {n?.label ?? (names.ready ? refId : "…")}
    </a>
  );
}

export function PromptLink({ refId, fallback }: { refId: string | undefined | null; fallback?: string }) {
  const names = useArtifactNames();
  if (!refId) return <span className="muted">{fallback ?? "none"}</span>;
  const n = names.prompt(refId);
  return (
    <a href={n?.href ?? href(/^prv_/.test(refId) ? "prompt-revisions" : "prompts", refId)} title={refId} className="artifact-link" data-testid="prompt-link">
      {n?.label ?? (names.ready ? refId : "…")}
    </a>
  );
}

export function TagChip({ name, color, change, id }: { name: string; color?: string; change?: "added" | "removed" | "same"; id?: string }) {
  const cls = `tag-chip${change && change !== "same" ? ` chip-${change}` : ""}`;
  const body = (
    <>
      {change === "added" && <span className="chip-sign" aria-label="added">+</span>}
      {change === "removed" && <span className="chip-sign" aria-label="removed">−</span>}
      {color && <span className="dot" style={{ background: color }} />}
      {name}
    </>
  );
  return id ? (
    <a className={cls} href={href("tags", id)} title={id} data-testid="tag-chip">
      {body}
    </a>
  ) : (
    <span className={cls} data-testid="tag-chip">
      {body}
    </span>
  );
}

/** A tag by id or name, as a chip with its colour. */
export function TagRef({ refId }: { refId: string }) {
  const names = useArtifactNames();
  const t = names.tag(refId);
  return <TagChip name={t?.name ?? refId} color={t?.color || undefined} id={t?.id} />;
}
