// The usage routes' bodies, as app/server/wire.go generates them into
// api.gen.ts; where the UI relies on more than the generated type says
// (an override's input and output are given), it narrows it here.

import type { PriceOverride as GeneratedPriceOverride } from "../api/api.gen";

export type { AutoCreateEstimate, ModelPrice, PriceReport as UsagePrices } from "../api/api.gen";
export type { UsageLimits as Limits, UsageLimitsBody as LimitsBody } from "../api/types";

/** A price set by hand for a model, in US dollars per million tokens (cached: input tokens read from the provider's cache; the input price when left out). */
export type PriceOverride = Omit<GeneratedPriceOverride, "input" | "output"> & { input: number; output: number };
