// The model for new turns (kept in the browser's settings): the server's
// default, or one of the models it lists. The document chat and Ask share it.

import type { ModelList } from "../api/types";
import { updateSettings, useSettings } from "../lib/settings";

export function ModelSelect({ models }: { models: ModelList | undefined }) {
  const [settings] = useSettings();
  return (
    <select value={settings.model} onChange={(e) => updateSettings({ model: e.target.value })} data-testid="model-select" aria-label="Model" title="Model">
      <option value="">{models?.default ? `Default (${models.default})` : "Default model"}</option>
      {models?.models.map((m) => (
        <option key={m.id} value={m.id}>
          {m.id}
        </option>
      ))}
      {settings.model && !models?.models.some((m) => m.id === settings.model) && <option value={settings.model}>{settings.model}</option>}
    </select>
  );
}
