import { useEffect, useState } from "react";
import { errorMessage } from "../api/http";
import { api } from "../api/routes.gen";
import type { ProviderCheck, SearchStatus, ServerSettings, SettingsPatch } from "../api/types";
import { ErrorBox, RichText, Spinner } from "../components/common";
import { useSettings, type ApprovalMode } from "../lib/settings";
import { useTitle } from "../lib/useTitle";
import { OcrLanguages } from "../setup/OcrLanguages";
import { VisionModel } from "../setup/VisionModel";
import { McpAccess } from "../setup/McpAccess";
import { HistorySettings } from "../setup/HistorySettings";
import { InboxSettingsCard } from "../inbox/InboxSettings";
import { SetupPanel } from "../setup/SetupPanel";
import { refreshSetup, useSetupStatus } from "../setup/useSetup";
import { errorInput, type ErrorInput } from "../lib/errors";

/** The provider fields of the form, as typed; "" = not saved (the default applies). */
interface ProviderForm {
  ollama_host: string;
  openai_base_url: string;
  /** A new key; "" keeps the saved one. */
  openai_api_key: string;
  default_model: string;
  /** The embedding model for search by meaning; "" for none. */
  embed_model: string;
}

type Field = "ollama_host" | "openai_base_url" | "openai_api_key" | "default_model" | "embed_model";

const ENV_NAMES: Record<Field, string> = {
  ollama_host: "OLLAMA_HOST",
  openai_base_url: "OPENAI_BASE_URL",
  openai_api_key: "OPENAI_API_KEY",
  default_model: "--model or DOCENT_MODEL",
  embed_model: "--embed-model or DOCENT_EMBED_MODEL",
};

/** The form for what the server answered: saved values shown, defaults left empty (placeholders). */
function formOf(x: ServerSettings): ProviderForm {
  const saved = (f: Field, v: string) => (x.sources[f] === "default" ? "" : v);
  return {
    ollama_host: saved("ollama_host", x.ollama_host),
    openai_base_url: saved("openai_base_url", x.openai_base_url),
    openai_api_key: "",
    default_model: saved("default_model", x.default_model),
    embed_model: saved("embed_model", x.embed_model),
  };
}

export default function SettingsPage() {
  const [s, set] = useSettings();
  const [server, setServer] = useState<{ loading: boolean; value?: ServerSettings; error?: ErrorInput }>({ loading: true });
  const [form, setForm] = useState<ProviderForm>({ ollama_host: "", openai_base_url: "", openai_api_key: "", default_model: "", embed_model: "" });
  const setupState = useSetupStatus();
  const knownModels = (setupState.data?.models ?? []).map((m) => m.id);
  const [test, setTest] = useState<{ loading: boolean; result?: ProviderCheck[]; error?: ErrorInput }>({ loading: false });
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<{ ok: boolean; text: string } | null>(null);
  useTitle("Settings");

  const loaded = (x: ServerSettings) => {
    setServer({ loading: false, value: x });
    setForm(formOf(x));
  };

  const load = () => {
    setServer({ loading: true });
    api.getSettings().then(loaded, (e) => setServer({ loading: false, error: errorInput(e) }));
  };
  useEffect(load, []);

  const fromEnv = (f: Field) => server.value?.sources[f] === "env";
  const edit = (f: Field, v: string) => {
    setForm((old) => ({ ...old, [f]: v }));
    setSaved(null);
  };

  /** The fields to send: those the environment does not set; a key only when one was typed. */
  const patch = (): SettingsPatch => {
    const p: SettingsPatch = {};
    for (const f of ["ollama_host", "openai_base_url", "default_model", "embed_model"] as const) {
      if (!fromEnv(f)) p[f] = form[f].trim();
    }
    if (!fromEnv("openai_api_key") && form.openai_api_key.trim()) p.openai_api_key = form.openai_api_key.trim();
    return p;
  };

  const save = async (p: SettingsPatch = patch()) => {
    setSaved(null);
    setSaving(true);
    try {
      loaded(await api.putSettings(p));
      setSaved({ ok: true, text: "Saved. Docent uses these settings from now on." });
      void refreshSetup(); // another host or default model: the setup section checks again
    } catch (e) {
      setSaved({ ok: false, text: errorMessage(e) });
    } finally {
      setSaving(false);
    }
  };

  const testConnection = async () => {
    setTest({ loading: true });
    try {
      setTest({ loading: false, result: (await api.testSettings(patch())).providers });
    } catch (e) {
      setTest({ loading: false, error: errorInput(e) });
    }
  };

  const envNote = (f: Field) =>
    fromEnv(f) && (
      <span className="muted small-text" data-testid={`settings-env-${f}`}>
        Set by <code>{ENV_NAMES[f]}</code> in Docent&apos;s environment, which wins over the value saved here.
      </span>
    );
  const v = server.value;

  return (
    <div className="page settings-page">
      <div className="page-head">
        <h1>Settings</h1>
      </div>

      <SetupPanel
        onSettingsSaved={(x) => {
          // The picker saved the default model: show it below, keep the other fields as typed.
          setServer({ loading: false, value: x });
          setForm((old) => ({ ...old, default_model: formOf(x).default_model }));
        }}
      />

      <section className="card">
        <h2>Agent approvals</h2>
        <p className="muted">What happens when the agent wants to create, change or delete something.</p>
        {(
          [
            ["ask", "Ask every time"],
            ["per_tool", "Ask, except for the tools below"],
            ["auto_all", "Auto-approve all actions"],
          ] as [ApprovalMode, string][]
        ).map(([v, label]) => (
          <label key={v} className="check">
            <input type="radio" name="approval" checked={s.approvalMode === v} onChange={() => set({ approvalMode: v })} data-testid={`approval-${v}`} />
            {label}
          </label>
        ))}
        <div className="tool-list">
          {s.autoApprovedTools.length === 0 ? (
            <p className="muted small-text">No always-approved tools. Use “Always approve” on an action card to add one.</p>
          ) : (
            <ul>
              {s.autoApprovedTools.map((t) => (
                <li key={t}>
                  <code>{t}</code>{" "}
                  <button type="button" className="btn link small" onClick={() => set({ autoApprovedTools: s.autoApprovedTools.filter((x) => x !== t) })}>
                    remove
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>

      <section className="card">
        <h2>Models</h2>
        <p className="muted">
          Kept in Docent&apos;s local database, except the API key: that goes to your system keyring, or is sealed with a key file
          beside the database. It is sent only to the OpenAI-compatible server below and never shown again. Empty fields use the
          defaults.
        </p>
        {server.loading && <Spinner label="Loading the settings…" />}
        {server.error && <ErrorBox title="Could not load the settings" error={server.error} onRetry={load} />}
        {v && (
          <form className="form" onSubmit={(e) => { e.preventDefault(); void save(); }}>
            <label>
              Ollama host
              <input
                value={fromEnv("ollama_host") ? v.ollama_host : form.ollama_host}
                disabled={fromEnv("ollama_host")}
                onChange={(e) => edit("ollama_host", e.target.value)}
                placeholder="http://127.0.0.1:11434"
                data-testid="settings-ollama-host"
              />
              {envNote("ollama_host")}
            </label>
            <label>
              OpenAI-compatible base URL
              <input
                value={fromEnv("openai_base_url") ? v.openai_base_url : form.openai_base_url}
                disabled={fromEnv("openai_base_url")}
                onChange={(e) => edit("openai_base_url", e.target.value)}
                placeholder="https://api.openai.com/v1"
                data-testid="settings-openai-base"
              />
              {envNote("openai_base_url")}
              {v.openai_api_key_set && v.sources.openai_api_key === "settings" && !fromEnv("openai_base_url") && (
                <span className="muted small-text">Changing the URL removes the saved key, unless you type the new server&apos;s key too.</span>
              )}
            </label>
            <label>
              OpenAI API key
              <input
                type="password"
                value={form.openai_api_key}
                disabled={fromEnv("openai_api_key")}
                onChange={(e) => edit("openai_api_key", e.target.value)}
                placeholder={v.openai_api_key_set ? "A key is set; type a new one to replace it" : "No key"}
                autoComplete="off"
                data-testid="settings-openai-key"
              />
              {envNote("openai_api_key")}
              {v.openai_api_key_set && v.sources.openai_api_key === "settings" && (
                <button type="button" className="btn link small" onClick={() => void save({ openai_api_key: "" })} data-testid="settings-remove-key">
                  Remove the saved key
                </button>
              )}
            </label>
            <label>
              Default model
              <input
                value={fromEnv("default_model") ? v.default_model : form.default_model}
                disabled={fromEnv("default_model")}
                onChange={(e) => edit("default_model", e.target.value)}
                placeholder="ollama/qwen3:8b"
                list="known-models"
                data-testid="settings-default-model"
              />
              <datalist id="known-models">
                {knownModels.map((id) => (
                  <option key={id} value={id} />
                ))}
              </datalist>
              {envNote("default_model")}
              {unknownModelWarning(form.default_model, knownModels) && (
                <span className="field-error" role="status" data-testid="settings-model-unknown">
                  {unknownModelWarning(form.default_model, knownModels)}
                </span>
              )}
            </label>
            <label>
              Embedding model (search by meaning)
              <input
                value={fromEnv("embed_model") ? v.embed_model : form.embed_model}
                disabled={fromEnv("embed_model")}
                onChange={(e) => edit("embed_model", e.target.value)}
                placeholder={setupState.data?.embed_suggestion?.model ?? "ollama/nomic-embed-text"}
                list="known-models"
                data-testid="settings-embed-model"
              />
              {envNote("embed_model")}
              {!v.embed_model && setupState.data?.embed_suggestion && (
                <span className="muted small-text" data-testid="settings-embed-suggestion">
                  <RichText text={setupState.data.embed_suggestion.text} />
                </span>
              )}
              {v.embed_model && <EmbedProgress model={v.embed_model} />}
            </label>
            <div className="row">
              <button type="submit" className="btn primary" disabled={saving} data-testid="settings-save">
                Save
              </button>
              <button type="button" className="btn" onClick={() => void testConnection()} disabled={test.loading} data-testid="test-connection">
                Test connection
              </button>
              {saved && (
                <span className={saved.ok ? "muted" : "error"} role={saved.ok ? "status" : "alert"} data-testid="settings-saved">
                  {saved.ok ? saved.text : <>Not saved: <RichText text={saved.text} /></>}
                </span>
              )}
            </div>
          </form>
        )}
        {test.loading && <Spinner label="Asking the providers for their models…" />}
        {test.error && <ErrorBox title="The connection test did not run" error={test.error} onRetry={() => void testConnection()} />}
        {test.result && (
          <div className="test-result" data-testid="test-result">
            {test.result.map((c) => (
              <div key={c.provider} data-testid={`test-${c.provider}`}>
                <p>
                  <strong>{c.provider === "ollama" ? "Ollama" : "OpenAI-compatible"}</strong> <code>{c.url}</code>:{" "}
                  {!c.configured
                    ? "not configured (set a base URL or an API key)."
                    : c.ok
                      ? c.models.length === 0
                        ? "answered, but offers no models."
                        : `${c.models.length} model${c.models.length === 1 ? "" : "s"} found.`
                      : "failed."}
                </p>
                {c.configured && !c.ok && c.error && <ErrorBox error={c.error} onRetry={() => void testConnection()} />}
                {c.ok && c.models.length > 0 && (
                  <ul>
                    {c.models.map((m) => (
                      <li key={m}>
                        <code>{m}</code>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            ))}
          </div>
        )}
      </section>
      <InboxSettingsCard />
      <OcrLanguages />
      <VisionModel />
      <McpAccess />
      <HistorySettings />
      <section className="card" data-testid="settings-usage">
        <h2>Usage and spending limits</h2>
        <p className="muted">
          What the model calls used and cost, per day, model, edge and run, and limits per day and per month on what they may spend, in
          tokens or dollars: <a href="#/usage" data-testid="settings-usage-link">open Usage</a>.
        </p>
      </section>
    </div>
  );
}

/** How far the chunks are embedded with the model, asked again every few seconds while some wait. */
function EmbedProgress({ model }: { model: string }) {
  const [st, setSt] = useState<SearchStatus | null>(null);
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = () =>
      api.searchStatus().then(
        (x) => {
          if (stop) return;
          setSt(x);
          if (x.running || x.embedded < x.chunks) timer = setTimeout(poll, 3000);
        },
        () => undefined,
      );
    void poll();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [model]);
  if (!st || st.model !== model) return null;
  return (
    <span className="muted small-text" role="status" data-testid="settings-embed-progress">
      {embedProgressText(st)}
    </span>
  );
}

/** What the Settings page says of the embedding: how many chunks are done, and why the rest wait. */
export function embedProgressText(st: SearchStatus): string {
  const n = (x: number) => x.toLocaleString("en");
  let text = `${n(st.embedded)} of ${n(st.chunks)} text chunks embedded with ${st.model}`;
  if (st.running) text += "; embedding…";
  else if (st.embedded < st.chunks) text += st.error ? `; the rest wait: ${st.error}` : "; the rest wait";
  return text + ".";
}

/** A warning when a typed model is not among those the providers list (free text stays possible: a server may offer more than it lists). */
export function unknownModelWarning(typed: string, known: string[]): string {
  const t = typed.trim();
  if (!t || known.length === 0 || known.includes(t)) return "";
  return `${t} is not among the models the providers list; check its name (pull it first for Ollama).`;
}
