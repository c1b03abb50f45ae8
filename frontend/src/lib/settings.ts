// Per-user settings kept in localStorage: the approval policy, the chosen
// model and the provider settings (the protocol has no settings route).

import { useCallback, useSyncExternalStore } from "react";

export type ApprovalMode = "ask" | "auto_all" | "per_tool";

export interface Settings {
  approvalMode: ApprovalMode;
  /** Tools approved once and for all ("Always approve this tool"). */
  autoApprovedTools: string[];
  /** Model for new turns; "" = the server's default. */
  model: string;
  ollamaHost: string;
  openaiBaseURL: string;
  openaiKey: string;
  defaultModel: string;
}

const KEY = "docent.settings.v1";

const defaults: Settings = {
  approvalMode: "ask",
  autoApprovedTools: [],
  model: "",
  ollamaHost: "http://127.0.0.1:11434",
  openaiBaseURL: "",
  openaiKey: "",
  defaultModel: "",
};

let cache: Settings | null = null;
const listeners = new Set<() => void>();

export function getSettings(): Settings {
  if (cache) return cache;
  try {
    const raw = localStorage.getItem(KEY);
    cache = { ...defaults, ...(raw ? (JSON.parse(raw) as Partial<Settings>) : {}) };
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
