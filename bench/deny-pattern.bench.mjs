// The cost of one deny-pattern gate check (core/gates/custom.ts): JavaScript's backtracking RegExp
// (what the gate used before) against RE2JS (linear time, what it uses now), both
// case-insensitive, in plain Node (V8, as workerd). No server needed.
//   node bench/deny-pattern.bench.mjs
// Inputs: the tool arguments a gate usually sees (~300 characters of JSON), 10,000 characters of
// ordinary text, and the hostile case: `(a+)+$` against "a"×n + "!". The backtracking engine is
// timed on that only up to n = 27 (each extra "a" doubles its time); RE2JS up to n = 10,000.
import { RE2JS } from "re2js";
import { pathToFileURL } from "node:url";

const round = (x, digits = 2) => Number(x.toFixed(digits));

/** Mean microseconds of `fn()` over enough repetitions to fill about `budgetMs`. */
function micros(fn, budgetMs = 300) {
  for (let i = 0; i < 50; i++) fn();
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < budgetMs) {
    for (let i = 0; i < 50; i++) fn();
    n += 50;
  }
  return ((performance.now() - t0) * 1000) / n;
}

const secretsPattern = "(api[_-]?key|password)\\s*[:=]";
const args = JSON.stringify({
  url: "https://api.github.com/repos/acme/widgets/pulls?state=open&per_page=50",
  method: "POST",
  headers: { accept: "application/vnd.github+json", "x-request-id": "9b2f4c1e-5d7a-4e8b-a1c3-2f6e8d9b0a7c" },
  body: "Please summarise the open pull requests and list the ones that touch the billing module.",
});
const longText = Array.from({ length: 1400 }, (_, i) => `word${i % 97}`)
  .join(" ")
  .slice(0, 10_000);

export async function run() {
  const native = new RegExp(secretsPattern, "i");
  const re2 = RE2JS.compile(secretsPattern, RE2JS.CASE_INSENSITIVE);
  const rows = [
    {
      name: "typical args (~300 chars), no match: RegExp",
      figure: round(
        micros(() => native.test(args)),
        3,
      ),
      unit: "µs",
    },
    {
      name: "typical args (~300 chars), no match: RE2JS",
      figure: round(
        micros(() => re2.test(args)),
        3,
      ),
      unit: "µs",
    },
    {
      name: "typical args, match: RegExp",
      figure: round(
        micros(() => native.test(`${args} password=x`)),
        3,
      ),
      unit: "µs",
    },
    {
      name: "typical args, match: RE2JS",
      figure: round(
        micros(() => re2.test(`${args} password=x`)),
        3,
      ),
      unit: "µs",
    },
    {
      name: "10,000 chars, no match: RegExp",
      figure: round(
        micros(() => native.test(longText)),
        2,
      ),
      unit: "µs",
    },
    {
      name: "10,000 chars, no match: RE2JS",
      figure: round(
        micros(() => re2.test(longText)),
        2,
      ),
      unit: "µs",
    },
    {
      name: "compile the pattern: RegExp",
      figure: round(
        micros(() => new RegExp(secretsPattern, "i")),
        3,
      ),
      unit: "µs",
    },
    {
      name: "compile the pattern: RE2JS",
      figure: round(
        micros(() => RE2JS.compile(secretsPattern, RE2JS.CASE_INSENSITIVE)),
        2,
      ),
      unit: "µs",
    },
  ];
  const hostile = /(a+)+$/i;
  for (const n of [20, 25, 27]) {
    const input = `${"a".repeat(n)}!`;
    const t0 = performance.now();
    hostile.test(input);
    rows.push({ name: `(a+)+$ on "a"×${n}+"!": RegExp`, figure: round(performance.now() - t0, 1), unit: "ms" });
  }
  const linear = RE2JS.compile("(a+)+$", RE2JS.CASE_INSENSITIVE);
  for (const n of [27, 10_000]) {
    const input = `${"a".repeat(n)}!`;
    rows.push({
      name: `(a+)+$ on "a"×${n}+"!": RE2JS`,
      figure: round(
        micros(() => linear.test(input), 200),
        2,
      ),
      unit: "µs",
    });
  }
  return {
    title: "deny-pattern gate check",
    rows,
    notes: [
      'RegExp on the hostile input is timed once per n (each extra "a" doubles it); n = 27 is the case in the issue.',
    ],
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { rows, notes } = await run();
  for (const row of rows) console.log(`${row.name.padEnd(48)} ${String(row.figure).padStart(10)} ${row.unit}`);
  for (const note of notes) console.log(`note: ${note}`);
}
