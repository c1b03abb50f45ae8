// A line diff of two texts (a prompt's instructions and their new
// version): the longest common subsequence of lines, then runs of
// unchanged lines far from a change folded to "… N unchanged lines".

export type DiffOp = "same" | "add" | "del" | "fold";

export interface DiffLine {
  op: DiffOp;
  /** The line; for "fold", how many lines were folded, as text. */
  text: string;
}

/** Lines beyond this many on either side are compared as blocks (no LCS), to bound the work. */
const MAX_LINES = 2000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.replace(/\r\n/g, "\n").split("\n");
  const b = after.replace(/\r\n/g, "\n").split("\n");
  if (before === after) return a.map((text) => ({ op: "same", text }));
  // Common head and tail first: most edits touch a few lines.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const mid: DiffLine[] = [];
  if (am.length > MAX_LINES || bm.length > MAX_LINES) {
    am.forEach((text) => mid.push({ op: "del", text }));
    bm.forEach((text) => mid.push({ op: "add", text }));
  } else {
    // lcs[i][j]: the LCS length of am[i:] and bm[j:].
    const n = am.length;
    const m = bm.length;
    const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--) lcs[i][j] = am[i] === bm[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) {
        mid.push({ op: "same", text: am[i] });
        i++;
        j++;
      } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
        mid.push({ op: "add", text: bm[j++] });
      } else {
        mid.push({ op: "del", text: am[i++] });
      }
    }
    // Deletions before additions within a changed block reads best.
    normalise(mid);
  }
  return [...a.slice(0, head).map((text) => ({ op: "same" as const, text })), ...mid, ...a.slice(a.length - tail).map((text) => ({ op: "same" as const, text }))];
}

function normalise(lines: DiffLine[]): void {
  let k = 0;
  while (k < lines.length) {
    if (lines[k].op === "same") {
      k++;
      continue;
    }
    let e = k;
    while (e < lines.length && lines[e].op !== "same") e++;
    const block = lines.slice(k, e);
    const sorted = [...block.filter((l) => l.op === "del"), ...block.filter((l) => l.op === "add")];
    lines.splice(k, e - k, ...sorted);
    k = e;
  }
}

/** Runs of unchanged lines more than `context` lines away from a change become one "fold" line. */
export function foldDiff(lines: DiffLine[], context = 2): DiffLine[] {
  const near = lines.map(() => false);
  lines.forEach((l, i) => {
    if (l.op === "same") return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) near[k] = true;
  });
  const out: DiffLine[] = [];
  let folded = 0;
  lines.forEach((l, i) => {
    if (l.op === "same" && !near[i]) {
      folded++;
      return;
    }
    if (folded) out.push({ op: "fold", text: String(folded) });
    folded = 0;
    out.push(l);
  });
  if (folded) out.push({ op: "fold", text: String(folded) });
  return out;
}

/** The plain-text form of a diff line, as the terminal prints it. */
export function diffLineText(l: DiffLine): string {
  switch (l.op) {
    case "add":
      return `+ ${l.text}`;
    case "del":
      return `- ${l.text}`;
    case "fold": {
      const n = Number(l.text);
      return `  … ${n} unchanged line${n === 1 ? "" : "s"}`;
    }
    default:
      return `  ${l.text}`;
  }
}
