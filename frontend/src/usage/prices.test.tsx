import { renderToString } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { overrideOf, overridesOf, PricesTable, priceForm, withOverride } from "./UsagePrices";
import type { UsagePrices } from "./wire";

vi.mock("../api/routes.gen", () => ({ api: {} }));

const prices: UsagePrices = {
  list_source: "@pydantic/genai-prices@0.0.30",
  list_date: "2026-10-01",
  models: [
    { model: "openai/gpt-4o-mini", input: 0.15, output: 0.6, cached: 0.075, source: "list" },
    { model: "openai/house-model", input: 2, output: 8, cached: 2, source: "override" },
    { model: "ollama/qwen3:8b", input: 0, output: 0, cached: 0, source: "local" },
    { model: "openai/mystery-1", source: "unknown" },
  ],
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
    expect(row("openai/gpt-4o-mini")).toContain('aria-label="Set price of openai/gpt-4o-mini"');
    expect(row("openai/gpt-4o-mini")).not.toContain("Remove");
    expect(row("openai/house-model")).toContain('aria-label="Remove your price of openai/house-model"');
    expect(row("ollama/qwen3:8b")).not.toContain("Set price");
  });
});

describe("price overrides", () => {
  it("fills the form with the model's price, empty where it has none", () => {
    expect(priceForm(prices.models[0])).toEqual({ input: "0.15", output: "0.6", cached: "0.075" });
    expect(priceForm(prices.models[3])).toEqual({ input: "", output: "", cached: "" });
  });

  it("reads the form into an override: input and output needed, cached left out when empty", () => {
    expect(overrideOf({ input: " 2 ", output: "8", cached: "" })).toEqual({ input: 2, output: 8 });
    expect(overrideOf({ input: "2", output: "8", cached: "0.5" })).toEqual({ input: 2, output: 8, cached: 0.5 });
  });

  it("refuses an empty or non-numeric price here, naming its field", () => {
    expect(overrideOf({ input: "", output: "8", cached: "" })).toEqual({ field: "input", error: "input: want the dollars a million input tokens cost, such as 2.50" });
    expect(overrideOf({ input: "2", output: "eight", cached: "" })).toEqual({ field: "output", error: 'output "eight": want the dollars a million output tokens cost, such as 2.50' });
  });

  it("reads a person's prices from the models whose price is theirs", () => {
    expect(overridesOf(prices)).toEqual({ "openai/house-model": { input: 2, output: 8, cached: 2 } });
  });

  it("sets or removes one model's override and keeps the others", () => {
    const one = { input: 1, output: 2 };
    const overrides = overridesOf(prices);
    const set = withOverride(overrides, "openai/gpt-4o-mini", one);
    expect(set).toEqual({ "openai/house-model": { input: 2, output: 8, cached: 2 }, "openai/gpt-4o-mini": one });
    expect(withOverride(set, "openai/house-model", null)).toEqual({ "openai/gpt-4o-mini": one });
    expect(overrides).toEqual({ "openai/house-model": { input: 2, output: 8, cached: 2 } });
  });
});
