import { renderToString } from "react-dom/server";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SetupStatus } from "../api/types";
import { capabilityChips, composerBlock, contextLabel, ollamaLine, pickerInitial, pickerModels, recommendationText, recommendedLabel } from "./setup";
import { ComposerDisabledReason, SetupView } from "./SetupPanel";

// The composer asks GET /api/setup through getSetup; the test answers.
const getSetup = vi.fn<() => Promise<SetupStatus>>();
vi.mock("../api/routes.gen", () => ({ api: {}, getSetup: () => getSetup() }));

const suggestions = [
  { model: "qwen3:8b", command: "ollama pull qwen3:8b", memory: "16 GB of RAM" },
  { model: "qwen3:4b", command: "ollama pull qwen3:4b", memory: "8 GB of RAM" },
  { model: "llama3.2:3b", command: "ollama pull llama3.2:3b", memory: "less than 8 GB of RAM (the smallest)" },
];

/** Ollama runs with qwen3:8b and gemma3:4b pulled, no default model chosen: as GET /api/setup answers it. */
function pulledNotChosen(): SetupStatus {
  return {
    ollama: { host: "http://127.0.0.1:11434", reachable: true, error: "", version: "0.17.4" },
    openai: { url: "https://api.openai.com/v1", configured: false, reachable: false, error: "" },
    models: [
      { id: "ollama/gemma3:4b", provider: "ollama", capabilities: ["completion", "vision"], context_length: 131072, recommended_for: [] },
      { id: "ollama/nomic-embed-text:latest", provider: "ollama", capabilities: ["embedding"], context_length: 2048, recommended_for: [] },
      { id: "ollama/qwen3:8b", provider: "ollama", capabilities: ["completion", "tools", "thinking"], context_length: 40960, recommended_for: ["agent", "extraction"] },
    ],
    default_model: "",
    default_model_source: "default",
    recommended: { agent: "ollama/qwen3:8b", extraction: "ollama/qwen3:8b" },
    usable: false,
    reason: "no default model is chosen: choose ollama/qwen3:8b in Settings",
    next_steps: [{ kind: "choose_default", text: "Choose ollama/qwen3:8b as the default model: in Settings, or with --model ollama/qwen3:8b (or DOCENT_MODEL) on the command line" }],
    pull_command: "ollama pull qwen3:8b",
    pull_suggestions: suggestions,
    embed_model: "",
  };
}

/** Ollama is not running: as GET /api/setup answers it. */
function ollamaMissing(): SetupStatus {
  return {
    ...pulledNotChosen(),
    ollama: {
      host: "http://127.0.0.1:11434",
      reachable: false,
      error: "cannot reach Ollama at http://127.0.0.1:11434: is it running? Start it with `ollama serve` (dial tcp 127.0.0.1:11434: connect: connection refused)",
      version: "",
    },
    models: [],
    recommended: { agent: "", extraction: "" },
    reason: "Ollama is not running at http://127.0.0.1:11434: start it (`ollama serve`) or install it from https://ollama.com/download, then run `ollama pull qwen3:8b`; or set up an OpenAI-compatible server in Settings",
    next_steps: [
      { kind: "start_ollama", text: "Start Ollama (`ollama serve`, or open the Ollama app)", command: "ollama serve" },
      {
        kind: "install_ollama",
        text: "Not installed? Download Ollama from https://ollama.com/download; on Linux: `curl -fsSL https://ollama.com/install.sh | sh`",
        command: "curl -fsSL https://ollama.com/install.sh | sh",
        url: "https://ollama.com/download",
      },
      { kind: "pull_model", text: "Then pull a small model that can call tools: `ollama pull qwen3:8b`", command: "ollama pull qwen3:8b" },
    ],
  };
}

function usable(): SetupStatus {
  return { ...pulledNotChosen(), default_model: "ollama/qwen3:8b", default_model_source: "settings", usable: true, reason: "", next_steps: [] };
}

describe("recommendation display", () => {
  it("shows tools first and says when capabilities are unknown", () => {
    expect(capabilityChips({ capabilities: ["completion", "thinking", "tools", "vision"] }).map((c) => c.label)).toEqual(["tools", "vision", "thinking", "completion"]);
    expect(capabilityChips({ capabilities: ["embedding", "completion"] }).map((c) => c.label)).toEqual(["completion", "embedding"]);
    expect(capabilityChips({ capabilities: [] })).toEqual([{ label: "capabilities unknown", known: false }]);
    expect(contextLabel(40960)).toBe("40k tokens");
    expect(contextLabel(131072)).toBe("128k tokens");
    expect(contextLabel(undefined)).toBe("");
  });

  it("words the recommendation for one model, two, or none that calls tools", () => {
    const s = pulledNotChosen();
    expect(recommendationText(s)).toBe("Recommended: `ollama/qwen3:8b` for the agent and for extraction.");
    expect(recommendedLabel(s.models[2])).toBe("Recommended for the agent and extraction");
    expect(recommendedLabel(s.models[0])).toBe("");
    expect(recommendationText({ ...s, recommended: { agent: "ollama/qwen3:8b", extraction: "ollama/gemma3:4b" } })).toBe(
      "Recommended: `ollama/qwen3:8b` for the agent, `ollama/gemma3:4b` for extraction.",
    );
    expect(recommendationText({ ...s, recommended: { agent: "", extraction: "ollama/gemma3:4b" } })).toContain("run `ollama pull qwen3:8b`");
    expect(recommendationText(ollamaMissing())).toBe("No model to recommend yet: run `ollama pull qwen3:8b`.");
  });

  it("says whether Ollama was found, and why not", () => {
    expect(ollamaLine(pulledNotChosen())).toBe("Ollama 0.17.4 found at http://127.0.0.1:11434.");
    expect(ollamaLine(ollamaMissing())).toContain("Ollama not found at http://127.0.0.1:11434: cannot reach Ollama");
    expect(ollamaLine(ollamaMissing())).toContain("connection refused");
  });

  it("offers the models that can chat, the recommended one first and preselected", () => {
    const s = pulledNotChosen();
    expect(pickerModels(s).map((m) => m.id)).toEqual(["ollama/qwen3:8b", "ollama/gemma3:4b"]);
    expect(pickerInitial(s)).toBe("ollama/qwen3:8b");
    expect(pickerInitial({ ...s, default_model: "ollama/gemma3:4b" })).toBe("ollama/gemma3:4b");
    expect(pickerInitial(ollamaMissing())).toBe("");
  });

  it("renders the setup state with chips, the picker and the pull command", () => {
    const s = pulledNotChosen();
    const html = renderToString(<SetupView setup={s} picked={pickerInitial(s)} onPick={() => {}} onSave={() => {}} saving={false} saved={null} />);
    expect(html).toContain('data-testid="setup-status"');
    expect(html).toContain('data-usable="false"');
    expect(html).toContain('data-ollama="found"');
    expect(html).toContain("No model yet: <span>no default model is chosen: choose ollama/qwen3:8b in Settings</span>");
    expect(html).toMatch(/data-testid="model-picker"/);
    expect(html).toMatch(/<option value="ollama\/qwen3:8b" selected="">ollama\/qwen3:8b<!-- --> \(recommended\)<\/option>/);
    expect(html).not.toContain('<option value="ollama/nomic-embed-text:latest"');
    expect(html).toContain('data-capability="tools"');
    expect(html).toContain("Recommended for the agent and extraction");
    expect(html).toContain('<code data-testid="pull-command">ollama pull qwen3:8b</code>');
    expect(html).toContain('data-testid="copy-pull-command"');
    expect(html).toContain("<code>qwen3:4b</code> for <!-- -->8 GB of RAM");
  });

  it("renders Ollama missing with the steps, the download link and the command", () => {
    const html = renderToString(<SetupView setup={ollamaMissing()} picked="" onPick={() => {}} onSave={() => {}} saving={false} saved={null} />);
    expect(html).toContain('data-ollama="not-found"');
    expect(html).toContain('data-kind="install_ollama"');
    expect(html).toContain('href="https://ollama.com/download"');
    expect(html).toContain("<code>curl -fsSL https://ollama.com/install.sh | sh</code>");
    expect(html).not.toContain('data-testid="model-picker"'); // nothing to pick
    expect(html).toContain('<code data-testid="pull-command">ollama pull qwen3:8b</code>');
  });

  it("disables the picker while the environment sets the default model", () => {
    const s = { ...usable(), default_model_source: "env" as const };
    const html = renderToString(<SetupView setup={s} picked={s.default_model} onPick={() => {}} onSave={() => {}} saving={false} saved={null} />);
    expect(html).toMatch(/<select[^>]*disabled=""[^>]*data-testid="model-picker"/);
    expect(html).toContain("Ready: the agent uses <code>ollama/qwen3:8b</code>");
    expect(html).toContain("DOCENT_MODEL");
  });
});

describe("composer disabled state", () => {
  it("blocks only when the server says no usable model is set and none usable is chosen here", () => {
    expect(composerBlock(undefined)).toBeNull(); // not known yet: the turn's own error would say
    expect(composerBlock(usable())).toBeNull();
    expect(composerBlock(pulledNotChosen())).toBe("No model yet: no default model is chosen: choose ollama/qwen3:8b in Settings");
    expect(composerBlock(pulledNotChosen(), "ollama/gemma3:4b")).toBeNull(); // chosen in the agent panel's menu
    expect(composerBlock(pulledNotChosen(), "ollama/nomic-embed-text:latest")).not.toBeNull(); // cannot chat
    expect(composerBlock(pulledNotChosen(), "ollama/llama3.2:1b")).not.toBeNull(); // not offered
    expect(composerBlock({ ...pulledNotChosen(), reason: "" })).toBe("No model yet: no default model is set");
  });

  it("renders the reason on one line with the link to Settings", () => {
    const html = renderToString(<ComposerDisabledReason reason={composerBlock(ollamaMissing())!} />);
    expect(html).toContain('data-testid="composer-disabled-reason"');
    expect(html).toContain('href="#/settings"');
    expect(html).toContain("Open Settings");
    expect(html).toContain("<code>ollama serve</code>");
    expect(html).not.toContain("`");
  });

  describe("the composer", () => {
    beforeEach(() => getSetup.mockReset());

    async function render(setup: SetupStatus, busy = false) {
      getSetup.mockResolvedValue(setup);
      const { refreshSetup } = await import("./useSetup");
      await refreshSetup();
      const { Composer } = await import("../agent/Composer");
      return renderToString(<Composer busy={busy} blocked={null} onSend={() => {}} onStop={() => {}} />);
    }

    it("is disabled with the reason while no usable model is set", async () => {
      const html = await render(ollamaMissing());
      expect(html).toContain('data-testid="composer-disabled-reason"');
      expect(html).toMatch(/<textarea[^>]*disabled=""[^>]*data-testid="chat-input"|<textarea[^>]*data-testid="chat-input"[^>]*disabled=""/);
      expect(html).toMatch(/<button[^>]*disabled=""[^>]*data-testid="send-button"/);
    });

    it("is enabled once a usable model is set", async () => {
      const html = await render(usable());
      expect(html).not.toContain("composer-disabled-reason");
      expect(html).not.toMatch(/<textarea[^>]*disabled=""/);
    });

    it("keeps Stop during a turn whatever the setup says", async () => {
      const html = await render(ollamaMissing(), true);
      expect(html).not.toContain("composer-disabled-reason");
      expect(html).toContain('data-testid="stop-button"');
    });
  });
});
