// Evals through a real local stack (wrangler dev) with the real CLI and the offline model: the
// example suite (examples/evals/basics.yaml) runs against an agent told the code word and passes (exit 0, a
// table of verdicts); a suite below its threshold exits 1 naming the failing case; a second run says
// what changed since the first; `eval list` and `eval show` read the kept runs; a broken suite file
// exits 2 and a wrong grader is refused by its field. Prints `N passed, N failed` last.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks, makeCli } from "./check-kit.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-evals-"));
const { check, finish } = makeChecks();
const call = makeCall(token);

/** `pantheon <args>` from the checkout, URL and token from the `env` given. */
const cli = makeCli({ project: "", cwd: root, configHome: join(persistTo, "config"), timeoutMs: 120_000, input: "" });
const shown = (r) => JSON.stringify({ code: r.code, stdout: r.stdout.slice(0, 1500), stderr: r.stderr.slice(0, 600) });

let server;
try {
  server = await startDevServer({ port: await freePort(), token, persistTo });
  const env = { PANTHEON_URL: server.url, PANTHEON_TOKEN: token };
  const run = (...args) => cli(args, { env });
  await call(server.url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "scout", description: "Finds things", systemPrompt: "The code word is pineapple." }),
  });

  const example = await run("eval", "run", "examples/evals/basics.yaml", "--agent", "scout");
  check(
    "the example suite passes against scout on the offline model (exit 0), one table row per case",
    example.code === 0 &&
      /CASE\s+VERDICT\s+REASON\s+TOKENS\s+COST\s+LATENCY/.test(example.stdout) &&
      (example.stdout.match(/^\S.*\s+pass\s+/gm) ?? []).length === 5 &&
      example.stdout.includes("basics: 5/5 passed (100%), threshold 100%: passed"),
    shown(example),
  );
  check(
    "the summary gives tokens, cost (the offline model costs $0) and latency p50 and p95",
    /tokens \d+, cost \$0, latency p50 [\d.]+ m?s, p95 [\d.]+ m?s/.test(example.stdout),
    shown(example),
  );

  const strict = join(persistTo, "strict.yaml");
  await writeFile(
    strict,
    [
      "name: strict",
      "threshold: 0.9",
      "cases:",
      "  - name: code word",
      "    input: What is the code word?",
      "    expect: [{ contains: pineapple }]",
      "  - name: wants json",
      "    input: Give me JSON",
      "    expect:",
      "      - schema: { type: object, required: [city] }",
      "",
    ].join("\n"),
  );
  const below = await run("eval", "run", strict, "--agent", "scout");
  check(
    "a suite below its threshold exits 1 and names the failing case and why",
    below.code === 1 &&
      /wants json\s+FAIL\s+the reply holds no JSON/.test(below.stdout) &&
      below.stdout.includes("1/2 passed (50%), threshold 90%: FAILED"),
    shown(below),
  );

  // The prompt changes: the code word case breaks, and the second run says so.
  await call(server.url, "/api/agents/scout", {
    method: "PATCH",
    body: JSON.stringify({ systemPrompt: "You find things." }),
  });
  const after = await run("eval", "run", strict, "--agent", "scout");
  check(
    "a second run of a suite says what changed since the first: the pass rate and the case that broke",
    after.code === 1 && /pass rate -50%/.test(after.stdout) && /broke\s+code word/.test(after.stdout),
    shown(after),
  );

  const listed = await run("eval", "list", "scout");
  check(
    "pantheon eval list shows the three runs, newest first, with pass rates",
    listed.code === 0 &&
      (listed.stdout.match(/^[0-9a-f-]{36}\s/gm) ?? []).length === 3 &&
      listed.stdout.split("\n")[1]?.includes("strict") &&
      listed.stdout.includes("basics"),
    shown(listed),
  );
  const id = /^([0-9a-f-]{36})\s/m.exec(listed.stdout)?.[1] ?? "";
  const one = await run("eval", "show", "scout", id);
  check(
    "pantheon eval show gives one run's verdicts",
    one.code === 0 && /code word\s+FAIL/.test(one.stdout),
    shown(one),
  );

  const broken = join(persistTo, "broken.yaml");
  await writeFile(broken, "name: [unclosed\n");
  const notYaml = await run("eval", "run", broken, "--agent", "scout");
  check(
    "a suite file that is not YAML exits 2 naming the file",
    notYaml.code === 2 && notYaml.stderr.includes("is not YAML"),
    shown(notYaml),
  );
  const wrong = join(persistTo, "wrong.yaml");
  await writeFile(wrong, "name: wrong\ncases:\n  - name: a\n    input: hi\n    expect: [{ sounds: nice }]\n");
  const refused = await run("eval", "run", wrong, "--agent", "scout");
  check(
    "a grader that does not exist is refused by the server naming the field and what is allowed (exit 1)",
    refused.code === 1 && refused.stderr.includes("cases.0.expect.0") && refused.stderr.includes("a grader is one of"),
    shown(refused),
  );
  const noAgent = await run("eval", "run", "examples/evals/basics.yaml");
  check(
    "without --agent it exits 2 saying so",
    noAgent.code === 2 && noAgent.stderr.includes("--agent"),
    shown(noAgent),
  );
} catch (error) {
  check("the evals check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}

finish();
