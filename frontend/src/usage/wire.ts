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

/** A price set by hand for a model, in US dollars per million tokens (cached: input tokens read from the provider's cache; the input price when left out). */
export interface PriceOverride {
  input: number;
  output: number;
  cached?: number;
}

/** A model's price as the Usage page shows it, in US dollars per million tokens; none for a model whose price is unknown. */
export interface ModelPrice {
  model: string;
  /** Where the price comes from: the price list built in, a person's override, a local model (0), or none known. */
  source: "list" | "override" | "local" | "unknown";
  input?: number;
  output?: number;
  cached?: number;
}

/** GET and PUT /api/usage/prices. */
export interface UsagePrices {
  /** The price list built in and its version ("@pydantic/genai-prices@0.1.8"), and the day it was published. */
  list_source: string;
  list_date: string;
  models: ModelPrice[];
}

/** POST /api/auto-create/estimate. */
export interface AutoCreateEstimate {
  documents: number;
  /** The model calls the runs may make at most. */
  calls?: number;
  input_tokens: number;
  output_tokens: number;
  /** Absent when the model's price is unknown. */
  cost_usd?: number;
  priced: boolean;
  model: string;
  confirm_over_usd: number;
}
