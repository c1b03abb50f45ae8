// The message input: Enter sends, Shift+Enter adds a line, Esc stops a
// running turn, and "@" offers schemas, prompts, tags and documents to
// mention (sent as mentions: [{type, id}]). While no usable model is set
// up (GET /api/setup), it is disabled with a one-line reason and a link to
// Settings.

import { useEffect, useRef, useState } from "react";
import { api } from "../api/routes.gen";
import type { Mention } from "../api/types";
import { formatCount } from "../lib/format";
import { useSettings } from "../lib/settings";
import { composerBlock } from "../setup/setup";
import { ComposerDisabledReason } from "../setup/SetupPanel";
import { useSetupStatus } from "../setup/useSetup";

export interface MentionItem extends Mention {
  label: string;
}

interface Catalog {
  schemas: MentionItem[];
  prompts: MentionItem[];
  tags: MentionItem[];
}

let catalog: Promise<Catalog> | null = null;
function loadCatalog(): Promise<Catalog> {
  catalog ??= Promise.all([
    api.listSchemas().then((l) => l.schemas).catch(() => []),
    api.listPrompts().then((l) => l.prompts).catch(() => []),
    api.listTags().then((l) => l.tags).catch(() => []),
  ]).then(([s, p, t]) => ({
    schemas: s.map((x) => ({ type: "schema" as const, id: x.schema_id, label: x.name })),
    prompts: p.map((x) => ({ type: "prompt" as const, id: x.prompt_id, label: x.name })),
    tags: t.map((x) => ({ type: "tag" as const, id: x.id, label: x.name })),
  }));
  // Refresh next time: the agent may create artifacts.
  setTimeout(() => (catalog = null), 30_000);
  return catalog;
}

const TYPE_LABEL: Record<Mention["type"], string> = { schema: "schema", prompt: "prompt", tag: "tag", document: "document" };

export interface ComposerProps {
  busy: boolean;
  blocked: string | null;
  onSend(text: string, mentions: Mention[]): void;
  onStop(): void;
  /** The input's hint; the document chat's by default. */
  placeholder?: string;
  /** Whether "@" offers things to mention (the document chat's turns take mentions). */
  mentions?: boolean;
  /** The longest message the server takes, in characters: a longer one is not sent, and says so. */
  maxChars?: number;
}

/** Why a message cannot be sent for its length (what is sent is trimmed), or null. */
export function lengthProblem(text: string, maxChars: number | undefined): string | null {
  const n = text.trim().length;
  if (maxChars === undefined || n <= maxChars) return null;
  return `This message has ${formatCount(n)} characters; at most ${formatCount(maxChars)} can be sent. Shorten it.`;
}

export function Composer({
  busy,
  blocked,
  onSend,
  onStop,
  placeholder = "Ask about this document… (@ to mention a schema, prompt, tag or document)",
  mentions: mentionable = true,
  maxChars,
}: ComposerProps) {
  const [text, setText] = useState("");
  const [mentions, setMentions] = useState<MentionItem[]>([]);
  const [query, setQuery] = useState<string | null>(null);
  const [items, setItems] = useState<MentionItem[]>([]);
  const [active, setActive] = useState(0);
  const ta = useRef<HTMLTextAreaElement>(null);
  const [settings] = useSettings();
  const setup = useSetupStatus();
  // A turn under way keeps its Stop button whatever the setup says.
  const noModel = busy ? null : composerBlock(setup.data, settings.model);

  useEffect(() => {
    if (query === null) return;
    let cancelled = false;
    const t = setTimeout(async () => {
      const q = query.toLowerCase();
      const [c, docs] = await Promise.all([
        loadCatalog(),
        api.listDocuments({ q: query || undefined, limit: 6 }).catch(() => ({ documents: [], total: 0 })),
      ]);
      if (cancelled) return;
      const match = (x: MentionItem) => !q || x.label.toLowerCase().includes(q);
      const all = [
        ...c.schemas.filter(match),
        ...c.prompts.filter(match),
        ...c.tags.filter(match),
        ...docs.documents.map((d) => ({ type: "document" as const, id: d.id, label: d.name })),
      ].slice(0, 12);
      setItems(all);
      setActive(0);
    }, 120);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [query]);

  const detect = (value: string, caret: number) => {
    if (!mentionable) return;
    const m = /(^|\s)@([^\s@]*)$/.exec(value.slice(0, caret));
    setQuery(m ? m[2] : null);
  };

  const choose = (it: MentionItem) => {
    const el = ta.current;
    const caret = el?.selectionStart ?? text.length;
    const before = text.slice(0, caret).replace(/@([^\s@]*)$/, `@${it.label} `);
    const next = before + text.slice(caret);
    setText(next);
    setQuery(null);
    setMentions((ms) => (ms.some((x) => x.type === it.type && x.id === it.id) ? ms : [...ms, it]));
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(before.length, before.length);
    });
  };

  const tooLong = lengthProblem(text, maxChars);

  const send = () => {
    const t = text.trim();
    if (!t || busy || blocked || noModel || tooLong) return;
    onSend(t, mentions.map(({ type, id }) => ({ type, id })));
    setText("");
    setMentions([]);
    setQuery(null);
  };

  const open = query !== null && items.length > 0;

  return (
    <div className="composer">
      {mentions.length > 0 && (
        <div className="mention-chips" data-testid="mention-chips">
          {mentions.map((m) => (
            <span key={`${m.type}:${m.id}`} className="mention-chip">
              <span className="muted">{TYPE_LABEL[m.type]}</span> {m.label}
              <button type="button" aria-label={`Remove ${m.label}`} onClick={() => setMentions((xs) => xs.filter((x) => x !== m))}>
                ×
              </button>
            </span>
          ))}
        </div>
      )}
      {open && (
        <ul className="mention-menu" role="listbox" data-testid="mention-menu">
          {items.map((it, i) => (
            <li
              key={`${it.type}:${it.id}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? "active" : ""}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(it);
              }}
            >
              <span className="mention-type">{TYPE_LABEL[it.type]}</span> {it.label}
            </li>
          ))}
        </ul>
      )}
      {noModel && <ComposerDisabledReason reason={noModel} />}
      {blocked && <div className="composer-note muted">{blocked}</div>}
      {tooLong && (
        <div className="composer-note field-error" role="alert" id="composer-too-long" data-testid="composer-too-long">
          {tooLong}
        </div>
      )}
      <div className="composer-row">
        <textarea
          ref={ta}
          value={text}
          rows={Math.min(8, Math.max(2, text.split("\n").length))}
          placeholder={placeholder}
          data-testid="chat-input"
          aria-label="Message"
          disabled={!!noModel}
          aria-describedby={noModel ? "composer-disabled-reason" : tooLong ? "composer-too-long" : undefined}
          aria-invalid={tooLong ? true : undefined}
          onChange={(e) => {
            setText(e.target.value);
            detect(e.target.value, e.target.selectionStart);
          }}
          onClick={(e) => detect(text, e.currentTarget.selectionStart)}
          onKeyDown={(e) => {
            if (open) {
              if (e.key === "ArrowDown") {
                e.preventDefault();
                setActive((a) => (a + 1) % items.length);
                return;
              }
              if (e.key === "ArrowUp") {
                e.preventDefault();
                setActive((a) => (a - 1 + items.length) % items.length);
                return;
              }
              if (e.key === "Enter" || e.key === "Tab") {
                e.preventDefault();
                choose(items[active]);
                return;
              }
              if (e.key === "Escape") {
                e.preventDefault();
                setQuery(null);
                return;
              }
            }
            if (e.key === "Escape" && busy) {
              e.preventDefault();
              onStop();
              return;
            }
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              send();
            }
          }}
        />
        {busy ? (
          <button type="button" className="btn danger" onClick={onStop} data-testid="stop-button" title="Stop (Esc)">
            Stop
          </button>
        ) : (
          <button type="button" className="btn primary" onClick={send} disabled={!text.trim() || !!blocked || !!noModel || !!tooLong} data-testid="send-button">
            Send
          </button>
        )}
      </div>
    </div>
  );
}
