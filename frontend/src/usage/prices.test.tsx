import { renderToString } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { overrideOf, PricesTable, priceForm, withOverride } from "./UsagePrices";
import type { UsagePrices } from "./wire";

vi.mock("../api/routes", () => ({ api: {} }));

const prices: UsagePrices = {
  version: "0.0.30",
  date: "2026-10-01",
  models: [
    { model: "openai/gpt-4o-mini", input_per_mtok: 0.15, output_per_mtok: 0.6, cached_per_mtok: 0.075, source: "list" },
    { model: "openai/house-model", input_per_mtok: 2, output_per_mtok: 8, source: "override" },
    { model: "ollama/qwen3:8b", input_per_mtok: 0, output_per_mtok: 0, source: "local" },
    { model: "openai/mystery-1", input_per_mtok: 0, output_per_mtok: 0, source: "unknown" },
  ],
  overrides: { "openai/house-model": { input_per_mtok: 2, output_per_mtok: 8 } },
};

describe("the prices table", () => {
  const html = renderToString(<PricesTable prices={prices} busy={false} onEdit={() => {}} onRemove={() => {}} />);
  const row = (model: string) => html.slice(html.indexOf(`data-model="${model}"`), html.indexOf("</tr>", html.indexOf(`data-model="${model}"`)));

  it("lists each model with its price per million tokens and where the price comes from", () => {
    expect(row("openai/gpt-4o-mini")).toContain("$0.15");
    expect(row("openai/gpt-4o-mini")).toContain("$0.60");
    expect(row("openai/gpt-4o-mini")).toContain("$0.075");
    expect(row("openai/gpt-4o-mini")).toContain("Price list");
    expect(row("openai/house-model")).toContain("Your price");
    expect(row("ollama/qwen3:8b")).toContain("Local: free");
  });

  it("says price unknown for a model without one, never a figure", () => {
    expect(row("openai/mystery-1")).toContain("price unknown");
    expect(row("openai/mystery-1")).not.toContain("$");
  });

  it("offers to set a price for hosted models and to remove only a person's own, each button naming its model", () => {
    expect(row("openai/gpt-4o-mini")).toContain('aria-label="Set the price of openai/gpt-4o-mini"');
    expect(row("openai/gpt-4o-mini")).not.toContain("Remove");
    expect(row("openai/house-model")).toContain('aria-label="Remove your price of openai/house-model"');
    expect(row("ollama/qwen3:8b")).not.toContain("Set the price");
  });
});

describe("price overrides", () => {
  it("fills the form with the model's price, empty where it has none", () => {
    expect(priceForm(prices.models[0])).toEqual({ input: "0.15", output: "0.6", cached: "0.075" });
    expect(priceForm(prices.models[3])).toEqual({ input: "", output: "", cached: "" });
  });

  it("reads the form into an override: input and output needed, cached left out when empty", () => {
    expect(overrideOf({ input: " 2 ", output: "8", cached: "" })).toEqual({ input_per_mtok: 2, output_per_mtok: 8 });
    expect(overrideOf({ input: "2", output: "8", cached: "0.5" })).toEqual({ input_per_mtok: 2, output_per_mtok: 8, cached_per_mtok: 0.5 });
  });

  it("refuses an empty or non-numeric price here, naming its field", () => {
    expect(overrideOf({ input: "", output: "8", cached: "" })).toEqual({ field: "input_per_mtok", error: "input_per_mtok: want the dollars a million input tokens cost, such as 2.50" });
    expect(overrideOf({ input: "2", output: "eight", cached: "" })).toEqual({ field: "output_per_mtok", error: 'output_per_mtok "eight": want the dollars a million output tokens cost, such as 2.50' });
  });

  it("sets or removes one model's override and keeps the others", () => {
    const one = { input_per_mtok: 1, output_per_mtok: 2 };
    const set = withOverride(prices.overrides, "openai/gpt-4o-mini", one);
    expect(set).toEqual({ ...prices.overrides, "openai/gpt-4o-mini": one });
    expect(withOverride(set, "openai/house-model", null)).toEqual({ "openai/gpt-4o-mini": one });
    expect(prices.overrides).toEqual({ "openai/house-model": { input_per_mtok: 2, output_per_mtok: 8 } });
  });
});
