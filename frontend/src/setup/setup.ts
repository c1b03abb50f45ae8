// First-run setup, the pure part: what the composer and the Settings page
// make of GET /api/setup. The server decides what is usable, which model is
// recommended and what to do next (app/settings/firstrun.go); nothing here
// repeats those rules, it only words them for the page.

import type { SetupModel, SetupStatus } from "../api/types";

/** The capabilities shown as chips, in this order; any other follows. */
const CHIP_ORDER = ["tools", "vision", "thinking", "completion"];

export interface Chip {
  label: string;
  /** false for the single "capabilities unknown" chip. */
  known: boolean;
}

/** A model's capability chips: tools first, as that is what the agent needs. */
export function capabilityChips(m: Pick<SetupModel, "capabilities">): Chip[] {
  if (!m.capabilities.length) return [{ label: "capabilities unknown", known: false }];
  const rank = (c: string) => {
    const i = CHIP_ORDER.indexOf(c);
    return i < 0 ? CHIP_ORDER.length : i;
  };
  return [...m.capabilities].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((label) => ({ label, known: true }));
}

/** "40k tokens" for 40960: a context length as people say it. */
export function contextLabel(n: number | undefined): string {
  if (!n) return "";
  return n >= 1024 ? `${Math.round(n / 1024)}k tokens` : `${n} tokens`;
}

const USE_LABEL: Record<string, string> = { agent: "the agent", extraction: "extraction" };

/** "Recommended for the agent and extraction", or "" when it is not recommended. */
export function recommendedLabel(m: Pick<SetupModel, "recommended_for">): string {
  if (!m.recommended_for.length) return "";
  return "Recommended for " + m.recommended_for.map((u) => USE_LABEL[u]).join(" and ");
}

/**
 * One sentence on which model to use: the same one for both uses, one each,
 * or none that can call tools (then the pull command, in backticks).
 */
export function recommendationText(s: SetupStatus): string {
  const { agent, extraction } = s.recommended;
  if (agent && agent === extraction) return `Recommended: \`${agent}\` for the agent and for extraction.`;
  if (agent && extraction) return `Recommended: \`${agent}\` for the agent, \`${extraction}\` for extraction.`;
  if (extraction)
    return `None of the pulled models can call tools, which the agent needs: run \`${s.pull_command}\`. \`${extraction}\` can run extractions.`;
  return `No model to recommend yet: run \`${s.pull_command}\`.`;
}

/** One line on Ollama: found (with its version) or not, and why. */
export function ollamaLine(s: SetupStatus): string {
  const o = s.ollama;
  if (o.reachable) return `Ollama${o.version ? " " + o.version : ""} found at ${o.host}.`;
  return `Ollama not found at ${o.host}: ${o.error || "it did not answer"}`;
}

/** True when the model can chat: it completes, or its capabilities are unknown (an OpenAI-compatible server's). */
export function canChat(m: Pick<SetupModel, "capabilities">): boolean {
  return m.capabilities.length === 0 || m.capabilities.includes("completion");
}

/** The models the default-model picker offers: those that can chat, the recommended one first. */
export function pickerModels(s: SetupStatus): SetupModel[] {
  const chat = s.models.filter(canChat);
  const first = chat.filter((m) => m.recommended_for.includes("agent"));
  return [...first, ...chat.filter((m) => !first.includes(m))];
}

/** What the picker shows first: the default model, else the one recommended for the agent, else the first offered. */
export function pickerInitial(s: SetupStatus): string {
  return s.default_model || s.recommended.agent || pickerModels(s)[0]?.id || "";
}

/**
 * Why the composer is disabled, in one line, or null when it is not: no
 * usable default model and no usable model chosen for this chat (the model
 * menu of the agent panel, kept in the browser). Unknown setup (not
 * loaded, or the route failed) blocks nothing: the turn's own error says
 * what is wrong.
 */
export function composerBlock(s: SetupStatus | null | undefined, chosenModel = ""): string | null {
  if (!s || s.usable) return null;
  if (chosenModel) {
    const m = s.models.find((x) => x.id === chosenModel);
    if (m && canChat(m)) return null;
  }
  return `No model yet: ${s.reason || "no default model is set"}`;
}
