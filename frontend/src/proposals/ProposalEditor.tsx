// Edit a proposed call before approving it: a form for the common tools
// (a schema's fields, a prompt's text, a patched value), JSON for the
// rest and one click away for these. Every edit is checked as it is made;
// the card blocks approval while `problems` is not empty. Below the form,
// the server says what the edited call would do (POST
// /api/tools/{name}/summary), in the words of the card.

import { useContext, useEffect, useRef, useState } from "react";
import type { Summary, SummaryNow } from "../api/events.gen";
import { api } from "../api/routes.gen";
import { SchemaEditor } from "../schema/FieldTable";
import { responseFormatProblems } from "../schema/fields";
import { hasBody, ProposalBody, ProposalEnvContext } from "./ProposalView";

/** The arguments as an object: a JSON string is parsed; anything else is {}. */
function argsObject(v: unknown): Record<string, unknown> {
  if (typeof v === "string") {
    try {
      return argsObject(JSON.parse(v) as unknown);
    } catch {
      return {};
    }
  }
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export interface EditResult {
  /** The arguments to approve with; undefined while they cannot be built. */
  args?: Record<string, unknown>;
  problems: string[];
}

export interface ProposalEditorProps {
  callId: string;
  tool: string;
  args: unknown;
  /** The form that edits the call (the summary's `form`); none: JSON. */
  form?: Summary["form"];
  /** What the call changes as it is now (the summary's `now`): where the forms start. */
  now?: SummaryNow;
  /** What the call's tool may do (the summary's `ops`): one that creates must name what it makes. */
  ops?: Summary["ops"];
  onResult(r: EditResult): void;
}

/** A call whose tool creates something (the summary's `ops`, as the registry declares them) must name it. */
function creates(ops: Summary["ops"]): boolean {
  return ops?.includes("create") ?? false;
}

function jsonText(v: unknown): string {
  if (typeof v === "string") {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  return JSON.stringify(v ?? {}, null, 2);
}

/** Checks edited JSON arguments: an object, and for the schema tools a valid schema. */
export function checkArgsJSON(ops: Summary["ops"], form: Summary["form"], text: string): EditResult {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { problems: [`Not valid JSON: ${e instanceof Error ? e.message : String(e)}`] };
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return { problems: ["The arguments must be a JSON object ({…})."] };
  const o = v as Record<string, unknown>;
  const problems: string[] = [];
  if (form === "schema" && o.response_format !== undefined) problems.push(...responseFormatProblems(o.response_format));
  if (form === "schema" && creates(ops) && !(typeof o.name === "string" && o.name.trim())) problems.push("A schema needs a name.");
  return { args: o, problems };
}

/** What the edited arguments would do, asked of the server a moment after the last edit; null until known. */
function useEditedSummary(tool: string, args: Record<string, unknown> | undefined): Summary | null {
  const env = useContext(ProposalEnvContext);
  const [summary, setSummary] = useState<Summary | null>(null);
  const key = args ? JSON.stringify(args) : "";
  useEffect(() => {
    if (!env || !key) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      api.toolSummary(tool, { arguments: JSON.parse(key) as unknown, document_id: env.docId, thread_id: env.threadId ?? "" }).then(
        (s) => !cancelled && setSummary(s),
        () => !cancelled && setSummary(null),
      );
    }, 300);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [env, tool, key]);
  return key ? summary : null;
}

export function ProposalEditor({ callId, tool, args, form, now, ops, onResult }: ProposalEditorProps) {
  const [edited, setEdited] = useState<Record<string, unknown> | undefined>(undefined);
  const preview = useEditedSummary(tool, edited);
  const report = (r: EditResult) => {
    setEdited(r.problems.length === 0 ? r.args : undefined);
    onResult(r);
  };
  return (
    <>
      <ArgumentsEditor callId={callId} tool={tool} args={args} form={form} now={now} ops={ops} onResult={report} />
      {preview && hasBody(preview) && (
        <div className="edit-preview" data-testid="edit-summary">
          <div className="label">With these changes: {preview.title}</div>
          <ProposalBody summary={preview} />
        </div>
      )}
    </>
  );
}

function ArgumentsEditor({ callId, args, form, now, ops, onResult }: ProposalEditorProps) {
  const [asJSON, setAsJSON] = useState(!form);
  const [text, setText] = useState(() => jsonText(args));
  const latest = useRef<Record<string, unknown>>(argsObject(args));
  // What the form starts from: the proposal, or the JSON as edited when switching back.
  const [base, setBase] = useState<Record<string, unknown>>(() => argsObject(args));

  const report = (r: EditResult) => {
    if (r.args) latest.current = r.args;
    onResult(r);
  };

  useEffect(() => {
    if (asJSON) report(checkArgsJSON(ops, form, text));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [asJSON]);

  if (asJSON) {
    return (
      <div className="tool-edit" data-testid="proposal-editor">
        <div className="row space-between">
          <label className="label" htmlFor={`args-${callId}`}>
            Arguments (JSON)
          </label>
          {form && (
            <button
              type="button"
              className="btn link small"
              onClick={() => {
                setBase(latest.current);
                setAsJSON(false);
              }}
              data-testid="edit-as-form"
            >
              Edit as a form
            </button>
          )}
        </div>
        <textarea
          id={`args-${callId}`}
          className="mono"
          rows={Math.min(18, text.split("\n").length + 1)}
          value={text}
          data-testid="edit-args-input"
          spellCheck={false}
          onChange={(e) => {
            setText(e.target.value);
            report(checkArgsJSON(ops, form, e.target.value));
          }}
        />
      </div>
    );
  }

  const toJSON = () => {
    const t = JSON.stringify(latest.current, null, 2);
    setText(t);
    setAsJSON(true);
  };

  return (
    <div className="tool-edit" data-testid="proposal-editor">
      {form === "schema" && <SchemaForm creates={creates(ops)} args={base} now={now} onResult={report} />}
      {form === "prompt" && <PromptForm creates={creates(ops)} args={base} now={now} onResult={report} />}
      {form === "value" && <PatchForm args={base} now={now} onResult={report} />}
      <button type="button" className="btn link small" onClick={toJSON} data-testid="edit-as-json">
        Edit the arguments as JSON
      </button>
    </div>
  );
}

interface FormProps {
  args: Record<string, unknown>;
  now?: SummaryNow;
  onResult(r: EditResult): void;
}

function SchemaForm({ creates, args, now, onResult }: FormProps & { creates: boolean }) {
  const current = now?.name ? now : null;
  const startRF = args.response_format ?? current?.response_format;
  const [name, setName] = useState(typeof args.name === "string" ? args.name : "");
  const rf = useRef<{ value: unknown; problems: string[]; touched: boolean }>({ value: startRF, problems: startRF === undefined ? [] : responseFormatProblems(startRF), touched: false });

  const emit = (n: string) => {
    const out: Record<string, unknown> = { ...args };
    const problems = [...rf.current.problems];
    if (creates && !n.trim()) problems.push("A schema needs a name.");
    if (n.trim()) out.name = n.trim();
    else delete out.name;
    if (args.response_format !== undefined || rf.current.touched) {
      if (rf.current.value === undefined) problems.push("The schema is not valid JSON.");
      else out.response_format = rf.current.value;
    }
    onResult({ args: out, problems });
  };

  useEffect(() => emit(name), []); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <>
      <label className="form-label">
        Name
        <input
          value={name}
          placeholder={current?.name ?? ""}
          onChange={(e) => {
            setName(e.target.value);
            emit(e.target.value);
          }}
          data-testid="edit-schema-name"
        />
      </label>
      {startRF === undefined ? (
        <p className="muted small-text">The fields stay as they are (the current version could not be read to edit them).</p>
      ) : (
        <SchemaEditor
          initial={startRF}
          rows={14}
          onChange={(value, problems) => {
            rf.current = { value, problems, touched: true };
            emit(name);
          }}
        />
      )}
    </>
  );
}

function PromptForm({ creates, args, now, onResult }: FormProps & { creates: boolean }) {
  const current = now?.content !== undefined ? { name: now.name ?? "", content: now.content } : null;
  const [name, setName] = useState(typeof args.name === "string" ? args.name : "");
  const [content, setContent] = useState(typeof args.content === "string" ? args.content : (current?.content ?? ""));

  const emit = (n: string, c: string) => {
    const out: Record<string, unknown> = { ...args };
    const problems: string[] = [];
    if (n.trim()) out.name = n.trim();
    else if (creates) problems.push("A prompt needs a name.");
    else delete out.name;
    if (args.content !== undefined || (current && c !== current.content) || (!current && c)) {
      if (!c.trim()) problems.push("Write the instructions for the model.");
      out.content = c;
    }
    onResult({ args: out, problems });
  };

  useEffect(() => emit(name, content), []); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <>
      <label className="form-label">
        Name
        <input
          value={name}
          placeholder={current?.name ?? ""}
          onChange={(e) => {
            setName(e.target.value);
            emit(e.target.value, content);
          }}
          data-testid="edit-prompt-name"
        />
      </label>
      <label className="form-label">
        Instructions
        <textarea
          rows={Math.min(16, Math.max(5, content.split("\n").length + 1))}
          value={content}
          onChange={(e) => {
            setContent(e.target.value);
            emit(name, e.target.value);
          }}
          data-testid="edit-prompt-content"
        />
      </label>
    </>
  );
}

type ValueKind = "text" | "number" | "boolean" | "null" | "json";

function kindOf(v: unknown): ValueKind {
  if (v === null) return "null";
  if (typeof v === "string") return "text";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "boolean";
  return "json";
}

function textOf(v: unknown, k: ValueKind): string {
  if (k === "text") return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
  if (k === "number") return typeof v === "number" ? String(v) : "";
  if (k === "boolean") return v === false ? "false" : "true";
  if (k === "json") return v === undefined ? "" : JSON.stringify(v, null, 2);
  return "";
}

/** The value a patch form holds, or why it cannot be one. */
export function parsePatchValue(kind: ValueKind, text: string): { value?: unknown; problem?: string } {
  switch (kind) {
    case "text":
      return { value: text };
    case "number": {
      const t = text.trim();
      if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t)) return { problem: "Type a number, with a point for decimals (1234.5)." };
      return { value: Number(t) };
    }
    case "boolean":
      return { value: text === "true" };
    case "null":
      return { value: null };
    case "json":
      try {
        return { value: JSON.parse(text) as unknown };
      } catch (e) {
        return { problem: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
      }
  }
}

function PatchForm({ args, now, onResult }: FormProps) {
  const [path, setPath] = useState(typeof args.path === "string" ? args.path : "");
  const [kind, setKind] = useState<ValueKind>(kindOf(args.value));
  const [text, setText] = useState(textOf(args.value, kindOf(args.value)));

  const emit = (p: string, k: ValueKind, t: string) => {
    const v = parsePatchValue(k, t);
    const problems: string[] = [];
    if (!p.trim()) problems.push("Name the field to change (its path, e.g. line_items.0.amount).");
    if (v.problem) problems.push(v.problem);
    onResult({ args: { ...args, path: p.trim(), ...(v.problem ? {} : { value: v.value }) }, problems });
  };

  useEffect(() => emit(path, kind, text), []); // eslint-disable-line react-hooks/exhaustive-deps

  const cur = now ? { found: !!now.found, value: now.value } : null;
  return (
    <>
      <label className="form-label">
        Field
        <input
          className="mono"
          value={path}
          onChange={(e) => {
            setPath(e.target.value);
            emit(e.target.value, kind, text);
          }}
          data-testid="edit-patch-path"
        />
      </label>
      <div className="form-row">
        <label className="form-label narrow">
          Kind of value
          <select
            value={kind}
            onChange={(e) => {
              const k = e.target.value as ValueKind;
              const t = k === kind ? text : k === "boolean" ? "true" : k === "null" ? "" : text;
              setKind(k);
              setText(t);
              emit(path, k, t);
            }}
            data-testid="edit-patch-kind"
          >
            <option value="text">Text</option>
            <option value="number">Number</option>
            <option value="boolean">True or false</option>
            <option value="null">Empty (null)</option>
            <option value="json">JSON (a list or an object)</option>
          </select>
        </label>
        <label className="form-label grow">
          New value
          {kind === "boolean" ? (
            <select
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                emit(path, kind, e.target.value);
              }}
              data-testid="edit-patch-value"
            >
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          ) : kind === "json" ? (
            <textarea
              className="mono"
              rows={4}
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                emit(path, kind, e.target.value);
              }}
              data-testid="edit-patch-value"
            />
          ) : (
            <input
              value={text}
              disabled={kind === "null"}
              inputMode={kind === "number" ? "decimal" : undefined}
              onChange={(e) => {
                setText(e.target.value);
                emit(path, kind, e.target.value);
              }}
              data-testid="edit-patch-value"
            />
          )}
        </label>
      </div>
      {cur && <p className="muted small-text">Now: {cur.found ? JSON.stringify(cur.value) : "not set"}</p>}
    </>
  );
}
