import { afterEach, describe, expect, it } from "vitest";
import { formatBytes, formatCount, formatDecimal, resetLocaleForTests, userLocale } from "./format";

afterEach(resetLocaleForTests);

describe("number format", () => {
  it("keeps thousands separators", () => {
    expect(formatCount(12345, "en-US")).toBe("12,345");
    expect(formatCount(1234567, "de-DE")).toBe("1.234.567");
    expect(formatDecimal(1234.56, 1, "en-US")).toBe("1,234.6");
    expect(formatBytes(2048, "en-US")).toBe("2 KB");
  });

  it("picks the first locale that groups digits, falling back to en-US", () => {
    expect(userLocale(["not a locale!!", "fr-FR"])).toBe("fr-FR");
    expect(userLocale([undefined, "zz-invalid-@@"])).toBe("en-US");
    expect(/\D/.test(formatCount(1234567))).toBe(true);
  });
});
