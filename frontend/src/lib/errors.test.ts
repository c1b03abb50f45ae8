import { describe, expect, it } from "vitest";
import { ApiError } from "../api/http";
import { classify, describeError, splitBackticks } from "./errors";

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

  it("classifies a bare message by its words or its status line", () => {
    expect(classify({ message: "Cannot reach the Docent server. Is `docent --serve` still running?" })).toBe("network");
    expect(classify({ message: "cannot reach Ollama at http://x: is it running?" })).toBe("model_unreachable");
    expect(classify({ message: "502 Bad Gateway" })).toBe("model_failed");
    expect(classify({ message: "404 Not Found" })).toBe("not_found");
    expect(classify({ message: "something odd" })).toBe("unknown");
    expect(describeError("something odd")).toMatchObject({ title: "", retry: true, message: "something odd" });
    expect(describeError("something odd", false).retry).toBe(false);
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
