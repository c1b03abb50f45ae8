// UI preferences kept in localStorage: the approval policy and the model
// chosen for new turns. The provider settings (Ollama host, OpenAI base URL
// and key, default model) are the server's: GET/PUT /api/settings.

import { useCallback, useSyncExternalStore } from "react";

export type ApprovalMode = "ask" | "auto_all" | "per_tool";

export interface Settings {
  approvalMode: ApprovalMode;
  /** Tools approved once and for all ("Always approve this tool"). */
  autoApprovedTools: string[];
  /** Model for new turns; "" = the server's default. */
  model: string;
}

/** Fields earlier versions kept here; dropped on load (the key above all). */
const LEGACY_FIELDS = ["ollamaHost", "openaiBaseURL", "openaiKey", "defaultModel"];

const KEY = "docent.settings.v1";

const defaults: Settings = {
  approvalMode: "ask",
  autoApprovedTools: [],
  model: "",
};

let cache: Settings | null = null;
const listeners = new Set<() => void>();

export function getSettings(): Settings {
  if (cache) return cache;
  try {
    const raw = localStorage.getItem(KEY);
    const stored = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
    const legacy = LEGACY_FIELDS.filter((k) => k in stored);
    for (const k of legacy) delete stored[k];
    cache = { ...defaults, ...(stored as Partial<Settings>) };
    if (legacy.length) localStorage.setItem(KEY, JSON.stringify(cache));
  } catch {
    cache = { ...defaults };
  }
  return cache;
}

export function updateSettings(patch: Partial<Settings>): void {
  cache = { ...getSettings(), ...patch };
  try {
    localStorage.setItem(KEY, JSON.stringify(cache));
  } catch {
    // private mode: keep them for this session
  }
  listeners.forEach((fn) => fn());
}

function subscribe(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function useSettings(): [Settings, (patch: Partial<Settings>) => void] {
  const s = useSyncExternalStore(subscribe, getSettings, getSettings);
  const set = useCallback((p: Partial<Settings>) => updateSettings(p), []);
  return [s, set];
}

/** The approval fields of a chat request under the current policy. */
export function approvalFields(s: Settings): { auto_approve?: boolean; auto_approved_tools?: string[] } {
  if (s.approvalMode === "auto_all") return { auto_approve: true };
  if (s.approvalMode === "per_tool" && s.autoApprovedTools.length) return { auto_approved_tools: s.autoApprovedTools };
  return {};
}
