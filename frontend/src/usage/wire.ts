// The usage routes' bodies, as app/server/wire.go generates them into
// api.gen.ts; where the UI relies on more than the generated type says
// (a price's source is one of four words), it narrows it here.

import type { ModelPrice as GeneratedModelPrice, PriceReport, PriceOverride as GeneratedPriceOverride } from "../api/api.gen";

export type { AutoCreateEstimate } from "../api/api.gen";
export type { UsageLimits as Limits, UsageLimitsBody as LimitsBody } from "../api/types";

/** A price set by hand for a model, in US dollars per million tokens (cached: input tokens read from the provider's cache; the input price when left out). */
export type PriceOverride = Omit<GeneratedPriceOverride, "input" | "output"> & { input: number; output: number };

/** A model's price as the Usage page shows it; none for a model whose price is unknown. */
export type ModelPrice = Omit<GeneratedModelPrice, "source"> & {
  /** Where the price comes from: the price list built in, a person's override, a local model (0), or none known. */
  source: "list" | "override" | "local" | "unknown";
};

/** GET and PUT /api/usage/prices. */
export type UsagePrices = Omit<PriceReport, "models"> & { models: ModelPrice[] };
