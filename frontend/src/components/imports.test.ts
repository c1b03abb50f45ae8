import { describe, expect, it } from "vitest";

// The artifact components import one another; a circle among them (even of
// types only) means a type lives in the wrong module. artifactKind.ts holds
// what they all name.
const sources = import.meta.glob<string>("./*.{ts,tsx}", { query: "?raw", import: "default", eager: true });

/** The modules of this folder that file imports, by their glob keys ("./X.tsx"). */
function localImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"\.\/([^"]+)"/gm)) {
    const key = [".ts", ".tsx"].map((ext) => `./${m[1]}${ext}`).find((k) => k in sources);
    if (key) out.push(key);
  }
  return out;
}

/** Every circle of imports, each as the path that closes it. */
function circles(): string[] {
  const graph = new Map(Object.entries(sources).map(([file, text]) => [file, localImports(text)]));
  const done = new Set<string>();
  const found: string[] = [];
  const visit = (file: string, path: string[]) => {
    if (path.includes(file)) {
      found.push([...path.slice(path.indexOf(file)), file].join(" -> "));
      return;
    }
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

describe("the components' imports", () => {
  it("read them all", () => {
    expect(Object.keys(sources)).toContain("./ArtifactForm.tsx");
    expect(localImports(sources["./ArtifactDetail.tsx"])).toContain("./artifactKind.ts");
  });

  it("make no circle", () => {
    expect(circles()).toEqual([]);
  });
});
