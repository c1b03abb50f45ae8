// A Vitest reporter for scripts/test, used beside the default one: at the
// end of the run it appends the counts, the skipped tests (with the note of
// ctx.skip(note), or how they were skipped) and the failed tests to the
// summary file that scripts/testsummary reads. The lines are
// tab-separated: count PHASE PASSED FAILED SKIPPED, skip PHASE NAME WHY,
// fail PHASE NAME. DOCENT_TEST_STATE names the file, DOCENT_TEST_PHASE the
// phase.
import { appendFileSync } from "node:fs";

const clean = (s) => String(s).replace(/[\t\r\n]+/g, " ").trim();

export default class SummaryReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    const file = process.env.DOCENT_TEST_STATE;
    const phase = process.env.DOCENT_TEST_PHASE || "UI unit tests";
    if (!file) return;
    let passed = 0, failed = 0, skipped = 0;
    const lines = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const name = clean(`${mod.relativeModuleId} > ${test.fullName}`);
        const result = test.result();
        if (result.state === "passed") passed++;
        else if (result.state === "failed") {
          failed++;
          lines.push(`fail\t${phase}\t${name}`);
        } else {
          // skipped, or pending when the run was cut short
          skipped++;
          const mode = test.options?.mode;
          const why = result.note ? clean(result.note)
            : mode === "todo" ? "it.todo"
            : mode === "skip" ? "it.skip / skipIf (no message)"
            : mode === "only" ? "another test is marked .only"
            : `not run (${result.state})`;
          lines.push(`skip\t${phase}\t${name}\t${why}`);
        }
      }
      if (mod.state() === "failed" && ![...mod.children.allTests()].some((t) => t.result().state === "failed")) {
        // The file itself failed (a syntax error, a failing hook).
        failed++;
        lines.push(`fail\t${phase}\t${clean(mod.relativeModuleId)} (the file failed to run)`);
      }
    }
    for (const err of unhandledErrors || []) {
      failed++;
      lines.push(`fail\t${phase}\tunhandled error: ${clean(err?.message ?? err).slice(0, 200)}`);
    }
    lines.unshift(`count\t${phase}\t${passed}\t${failed}\t${skipped}`);
    appendFileSync(file, lines.join("\n") + "\n");
  }
}
