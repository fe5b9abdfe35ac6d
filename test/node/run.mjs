// Runs every Node-side check (test/node/*.check.mjs, and test/embed/sidecar.check.mjs when present),
// each in its own process, and prints one summed "N passed, N failed" as the last line.
//   node test/node/run.mjs
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { root } from "./memory-harness.mjs";

const files = readdirSync(join(root, "test/node"))
  .filter((f) => f.endsWith(".check.mjs"))
  .sort()
  .map((f) => join(root, "test/node", f));
const sidecarCheck = join(root, "test/embed/sidecar.check.mjs");
if (existsSync(sidecarCheck)) files.unshift(sidecarCheck);

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  console.log(`\n--- node ${file.slice(root.length + 1)}`);
  const result = spawnSync(process.execPath, [file], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  process.stdout.write(result.stdout ?? "");
  const match = /(\d+) passed, (\d+) failed(?:, (\d+) skipped)?[^\n]*\s*$/.exec(result.stdout ?? "");
  if (match) {
    passed += Number(match[1]);
    failed += Number(match[2]);
    skipped += Number(match[3] ?? 0);
  }
  // A check that crashed before its summary, or exited non-zero with none failed, still counts as a failure.
  if (!match || (result.status !== 0 && Number(match[2]) === 0)) failed += 1;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 ? 1 : 0);
