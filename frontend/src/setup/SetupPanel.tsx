// The setup section of the Settings page: is Ollama there, the models with
// their capabilities, the recommended one, a picker for the default model,
// and the exact `ollama pull` command to copy. The composer's one-line
// reason (ComposerDisabledReason) links here.

import { useEffect, useRef, useState } from "react";
import { errorMessage } from "../api/http";
import { api } from "../api/routes.gen";
import type { ServerSettings, SetupStatus } from "../api/types";
import { copyText, ErrorBox, RichText, Spinner } from "../components/common";
import { capabilityChips, contextLabel, ollamaLine, pickerInitial, pickerModels, recommendationText, recommendedLabel } from "./setup";
import { refreshSetup, useSetupStatus } from "./useSetup";

/** A command to copy, with its Copy button. */
export function CopyCommand({ command, testid }: { command: string; testid?: string }) {
  const [state, setState] = useState<"idle" | "done" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  return (
    <span className="row" style={{ gap: 6 }}>
      <code data-testid={testid}>{command}</code>
      <button
        type="button"
        className="btn small"
        aria-label={`Copy the command ${command}`}
        data-testid={testid ? `copy-${testid}` : "copy-command"}
        onClick={async () => {
          setState((await copyText(command)) ? "done" : "failed");
          if (timer.current) clearTimeout(timer.current);
          timer.current = setTimeout(() => setState("idle"), 1500);
        }}
      >
        {state === "done" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}
      </button>
    </span>
  );
}

/** The composer's one-line reason, with the way to Settings. */
export function ComposerDisabledReason({ reason }: { reason: string }) {
  return (
    <div className="composer-note" role="status" id="composer-disabled-reason" data-testid="composer-disabled-reason">
      <RichText text={reason} />{" "}
      <a href="#/settings" data-testid="composer-settings-link">
        Open Settings
      </a>
    </div>
  );
}

export interface SetupViewProps {
  setup: SetupStatus;
  /** The model the picker shows (controlled). */
  picked: string;
  onPick(model: string): void;
  onSave(): void;
  saving: boolean;
  saved: { ok: boolean; text: string } | null;
}

/** The setup state as the Settings page shows it; pure, for the tests. */
export function SetupView({ setup: s, picked, onPick, onSave, saving, saved }: SetupViewProps) {
  const models = pickerModels(s);
  const fromEnv = s.default_model_source === "env";
  const pullNeeded = s.next_steps.some((x) => x.kind === "pull_model") || !s.recommended.agent;
  return (
    <div data-testid="setup-status" data-usable={s.usable} data-ollama={s.ollama.reachable ? "found" : "not-found"}>
      <p className={s.usable ? "" : "error"} role="status" data-testid="setup-summary">
        {s.usable ? (
          <>
            Ready: the agent uses <code>{s.default_model}</code>.
          </>
        ) : (
          <>
            No model yet: <RichText text={s.reason} />
          </>
        )}
      </p>
      <p data-testid="setup-ollama">
        <RichText text={ollamaLine(s)} />
      </p>
      {s.openai.configured && (
        <p data-testid="setup-openai">
          OpenAI-compatible server at <code>{s.openai.url}</code>:{" "}
          {s.openai.reachable ? "answered." : <RichText text={`did not answer: ${s.openai.error}`} />}
        </p>
      )}

      {s.next_steps.length > 0 && (
        <ol className="setup-steps" data-testid="setup-next-steps">
          {s.next_steps.map((x, i) => (
            <li key={i} data-kind={x.kind}>
              <RichText text={x.text} />
              {x.url && (
                <>
                  {" "}
                  <a href={x.url} target="_blank" rel="noreferrer">
                    {x.url}
                  </a>
                </>
              )}
            </li>
          ))}
        </ol>
      )}

      {s.models.length > 0 && (
        <>
          <h3>Models offered</h3>
          <ul className="setup-models" data-testid="setup-models">
            {s.models.map((m) => (
              <li key={m.id} data-testid="setup-model" data-model={m.id}>
                <code>{m.id}</code>{" "}
                {capabilityChips(m).map((c) => (
                  <span key={c.label} className={`badge${c.known ? "" : " muted"}`} data-testid="capability-chip" data-capability={c.label}>
                    {c.label}
                  </span>
                ))}{" "}
                {m.context_length ? <span className="muted small-text">{contextLabel(m.context_length)}</span> : null}{" "}
                {recommendedLabel(m) && (
                  <span className="badge kind" data-testid="setup-recommended">
                    {recommendedLabel(m)}
                  </span>
                )}{" "}
                {m.id === s.default_model && <span className="badge status-ready">default</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      <p data-testid="setup-recommendation">
        <RichText text={recommendationText(s)} />
      </p>

      {models.length > 0 && (
        <div className="row">
          <label className="row" style={{ gap: 6 }}>
            Default model
            <select value={picked} disabled={fromEnv || saving} onChange={(e) => onPick(e.target.value)} data-testid="model-picker">
              {!models.some((m) => m.id === picked) && <option value={picked}>{picked || "Choose a model"}</option>}
              {models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                  {m.recommended_for.includes("agent") ? " (recommended)" : ""}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="btn primary"
            disabled={fromEnv || saving || !picked || picked === s.default_model}
            onClick={onSave}
            data-testid="model-picker-save"
          >
            Use as default
          </button>
          {fromEnv && (
            <span className="muted small-text">
              Set by <code>--model or DOCENT_MODEL</code> in Docent&apos;s environment, which wins over the value saved here.
            </span>
          )}
          {saved && (
            <span className={saved.ok ? "muted" : "error"} role={saved.ok ? "status" : "alert"} data-testid="model-picker-saved">
              {saved.ok ? saved.text : <RichText text={`Not saved: ${saved.text}`} />}
            </span>
          )}
        </div>
      )}

      <div data-testid="setup-pull">
        <p>{pullNeeded ? "Get a small model that can call tools:" : "To add another model that can call tools:"}</p>
        <CopyCommand command={s.pull_command} testid="pull-command" />
        {s.pull_suggestions.length > 1 && (
          <p className="muted small-text">
            {s.pull_suggestions.map((p, i) => (
              <span key={p.model}>
                {i > 0 && "; "}
                <code>{p.model}</code> for {p.memory}
              </span>
            ))}
            . After pulling, press “Check again”.
          </p>
        )}
      </div>
    </div>
  );
}

/** The Settings page's setup section: loads GET /api/setup and saves the picked default model. */
export function SetupPanel({ onSettingsSaved }: { onSettingsSaved?: (v: ServerSettings) => void }) {
  const setup = useSetupStatus();
  const [picked, setPicked] = useState("");
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<{ ok: boolean; text: string } | null>(null);
  const s = setup.data;
  const initial = s ? pickerInitial(s) : "";
  // Follow the server's default until the user picks another.
  useEffect(() => setPicked(initial), [initial]);

  const save = async () => {
    setSaving(true);
    setSaved(null);
    try {
      const v = await api.putSettings({ default_model: picked });
      onSettingsSaved?.(v);
      await refreshSetup();
      setSaved({ ok: true, text: `Saved: ${picked} is the default model.` });
    } catch (e) {
      setSaved({ ok: false, text: errorMessage(e) });
    } finally {
      setSaving(false);
    }
  };

  return (
    <section className="card" aria-labelledby="setup-heading">
      <div className="row space-between">
        <h2 id="setup-heading">Model setup</h2>
        <button type="button" className="btn small" onClick={setup.reload} disabled={setup.loading} data-testid="setup-refresh">
          Check again
        </button>
      </div>
      {setup.loading && !s && <Spinner label="Looking for Ollama and its models…" />}
      {setup.error && <ErrorBox title="Could not check the model setup" error={setup.error} onRetry={setup.reload} />}
      {s && <SetupView setup={s} picked={picked} onPick={(m) => { setPicked(m); setSaved(null); }} onSave={() => void save()} saving={saving} saved={saved} />}
    </section>
  );
}
