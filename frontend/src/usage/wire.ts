// The bodies of the usage routes the API branch (usage-a) adds, as its
// contract states them, until app/server/wire.go generates them into
// api.gen.ts: then these names re-export the generated ones.

import type { UsageLimits, UsageLimitsBody } from "../api/types";

/** GET /api/usage/limits' limits with the per-minute request limit and the confirm threshold. */
export type Limits = UsageLimits & {
  /** Model-calling HTTP requests a minute in --serve; 0 or absent: no limit. */
  per_minute?: number;
  /** The app asks before an auto-create batch estimated over this many dollars (default 1.00). */
  confirm_over_usd?: number;
};

export type LimitsBody = UsageLimitsBody & { per_minute?: number; confirm_over_usd?: number };

/** A model's price, in dollars per million tokens. */
export interface ModelPriceValues {
  input_per_mtok: number;
  output_per_mtok: number;
  cached_per_mtok?: number;
}

export interface ModelPrice extends ModelPriceValues {
  model: string;
  /** Where the price comes from: the dated list, a person's override, a local model (0), or none known. */
  source: "list" | "override" | "local" | "unknown";
}

/** GET and PUT /api/usage/prices. */
export interface UsagePrices {
  /** The price list's version and date. */
  version: string;
  date: string;
  models: ModelPrice[];
  overrides: Record<string, ModelPriceValues>;
}

/** POST /api/auto-create/estimate. */
export interface AutoCreateEstimate {
  documents: number;
  input_tokens: number;
  output_tokens: number;
  /** Absent when the model's price is unknown. */
  cost_usd?: number;
  priced: boolean;
  model: string;
  confirm_over_usd: number;
}
