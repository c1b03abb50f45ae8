import { describe, expect, it } from "vitest";
import { ApiError, errorFromResponse } from "../api/http";
import { classify, describeError, errorInput, formErrorField, splitBackticks } from "./errors";

describe("errors for people", () => {
  it("offers a retry for a network failure and a 5xx, not for a refused request", () => {
    const net = describeError(new ApiError(0, "Cannot reach the Docent server. Is `docent --serve` still running?", "network"));
    expect(net).toMatchObject({ kind: "network", retry: true, title: "Docent's server did not answer" });
    expect(describeError(new ApiError(500, "Internal error: something failed inside Docent", "internal")).retry).toBe(true);
    expect(describeError(new ApiError(502, "Ollama failed (500)", "server_error")).retry).toBe(true);
    const bad = describeError(new ApiError(400, "schema_version needs schema_id", "invalid"));
    expect(bad).toMatchObject({ kind: "invalid", retry: false, message: "schema_version needs schema_id" });
    expect(describeError(new ApiError(404, "no such schema", "not_found")).retry).toBe(false);
    expect(describeError(new ApiError(409, "tag exists", "conflict")).retry).toBe(false);
  });

  it("sends model and connection problems to Settings", () => {
    const down = describeError({ message: "cannot reach Ollama at http://127.0.0.1:11434: is it running? Start it with `ollama serve`", code: "unreachable" });
    expect(down).toMatchObject({ kind: "model_unreachable", retry: true, link: { href: "#/settings" } });
    expect(describeError({ message: "model x is not pulled: run `ollama pull x`", code: "model_not_found" }).link?.href).toBe("#/settings");
    expect(describeError({ message: "401", code: "auth" }).link?.href).toBe("#/settings");
    expect(describeError({ message: "qwen does not support tool calling", code: "no_tool_support" })).toMatchObject({ retry: false });
    expect(describeError(new ApiError(400, "x", "invalid")).link).toBeUndefined();
  });

  it("sends a spending limit to the Usage page, with the server's message and no retry", () => {
    const msg = "spending limit reached: 6,600 tokens spent today (2026-11-28 UTC) on all models, and the limit is 6,600 tokens a day; raise it with docent usage limit --daily N (or --off), or in Settings";
    expect(describeError(new ApiError(429, msg, "spending_limit"))).toMatchObject({
      kind: "spending_limit",
      retry: false,
      message: msg,
      link: { href: "#/usage" },
    });
  });

  it("tells Docent's own limit on model requests a minute (429) from a hosted API's rate limit (502)", () => {
    const msg = "too many model requests: the limit is 2 a minute (docent usage limit --per-minute, or the Usage page); try again in 41 s";
    expect(describeError(new ApiError(429, msg, "rate_limited"))).toMatchObject({
      kind: "request_limit",
      title: "Too many model requests this minute",
      retry: true,
      message: msg,
      link: { href: "#/usage" },
    });
    expect(describeError(new ApiError(502, "https://api.openai.com/v1 is rate limiting requests", "rate_limited")).kind).toBe("model_busy");
  });

  it("classifies by code, then by status, never by the words of the message", () => {
    // Words that once chose a class by themselves, now without a code: unknown.
    expect(classify({ message: "Cannot reach the Docent server. Is `docent --serve` still running?" })).toBe("unknown");
    expect(classify({ message: "cannot reach Ollama at http://x: is it running?" })).toBe("unknown");
    expect(classify({ message: "502 Bad Gateway" })).toBe("unknown");
    expect(classify({ message: "Internal error: something failed inside Docent" })).toBe("unknown");
    // The code decides, whatever the words say.
    expect(classify({ message: "cannot reach Ollama", code: "not_found" })).toBe("not_found");
    expect(classify({ message: "Host header refused", code: "misdirected", status: 421 })).toBe("unauthorized");
    expect(classify({ message: "the request body did not arrive in time", code: "request_timeout", status: 408 })).toBe("slow_request");
    expect(classify({ message: "x", code: "network", status: 0 })).toBe("network");
    // An answer without a code (a proxy's page): its status.
    expect(classify({ message: "<html>", status: 502 })).toBe("model_failed");
    expect(classify({ message: "<html>", status: 404 })).toBe("not_found");
    expect(classify({ message: "odd", code: "no_such_code", status: 409 })).toBe("conflict");
    expect(describeError("something odd")).toMatchObject({ title: "", retry: true, message: "something odd", kind: "unknown" });
    expect(describeError("something odd", false).retry).toBe(false);
  });

  it("keeps the code, status and field of a refused request to the form that shows it", async () => {
    const res = new Response(JSON.stringify({ error: "tag name is empty", code: "invalid", field: "name" }), { status: 400 });
    const e = await errorFromResponse(res);
    expect(e).toMatchObject({ status: 400, code: "invalid", field: "name", message: "tag name is empty" });
    expect(errorInput(e)).toEqual({ message: "tag name is empty", status: 400, code: "invalid", field: "name" });
    expect(formErrorField(e, ["name", "color", "description"])).toBe("name");
    // A field the form has no input for, or none at all: the form's foot.
    expect(formErrorField(new ApiError(400, "unknown tag t_x", "invalid", "tag_ids"), ["name", "color"])).toBe("_form");
    // The words name a field, but the server did not: not guessed.
    expect(formErrorField(new ApiError(409, "schema name is taken", "conflict"), ["name", "response_format"])).toBe("_form");
    expect(formErrorField(new ApiError(0, "Cannot reach the Docent server.", "network"), ["name"])).toBe("_form");
  });

  it("splits backticks into code spans", () => {
    expect(splitBackticks("run `ollama serve` and `x`.")).toEqual([
      { text: "run ", code: false },
      { text: "ollama serve", code: true },
      { text: " and ", code: false },
      { text: "x", code: true },
      { text: ".", code: false },
    ]);
    expect(splitBackticks("no code")).toEqual([{ text: "no code", code: false }]);
    expect(splitBackticks("a ` lone")).toEqual([{ text: "a ` lone", code: false }]);
  });
});
