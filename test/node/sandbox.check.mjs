// Hostile script tools through `wrangler dev` and the real CLI, each beside a positive control: the
// scripts are saved with `pantheon tools add <file.ts>` and called as an agent's tools
// (POST /api/agents/:name/tools/:tool/invoke, a traced run through its gates). Local workerd enforces
// no CPU or memory limit of an isolate, so the endless loop is stopped by the compiled step count
// and a heap filled by the allocation meter (core/sandbox compile.ts, the harness), as on Cloudflare
// before the platform's limits. Then the CLI's doors of a DSL (tool …) form's :path and of skills.
// SANDBOX_CHECK_PORT picks the server's port (else a free one). Prints `N passed, N failed`.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks, makeCli } from "./check-kit.mjs";

const { check, finish } = makeChecks();
const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const token = `pa_${randomBytes(12).toString("hex")}`;
const dir = await mkdtemp(join(tmpdir(), "pantheon-sandbox-"));
const call = makeCall(token);

// A listener on loopback that counts what reaches it: the only host a script may declare and reach here.
let hits = 0;
const listener = createServer((_, res) => {
  hits += 1;
  res.end("pong");
});
await new Promise((resolve) => listener.listen(0, "127.0.0.1", resolve));
const listenerUrl = `http://127.0.0.1:${listener.address().port}/`;

const declare = (name, extra = "") =>
  `export const tool = { name: "${name}", description: "a probe of the sandbox"${extra} };\n`;
const scripts = {
  "loop.ts": `${declare("probe.loop")}export default async function (input: { endless: boolean }) {
  let n = 0;
  while (input.endless || n < 1000) n++;
  return n;
}\n`,
  "net.ts": `${declare("probe.net", `, hosts: ["127.0.0.1", "169.254.169.254"]`)}export default async function (input: { url: string }) {
  try {
    return await (await fetch(input.url)).text();
  } catch (error) {
    return "refused: " + (error as Error).message;
  }
}\n`,
  "nonet.ts": `${declare("probe.nonet")}export default async function (input: { url: string }) {
  try {
    return await (await fetch(input.url)).text();
  } catch (error) {
    return "refused: " + (error as Error).message;
  }
}\n`,
  "secrets.ts": `${declare("probe.secrets", `, secrets: ["MINE"]`)}export default async function (input: { name: string; whole?: boolean }, ctx: any) {
  const value: string = await ctx.secret(input.name);
  return input.whole ? value : { length: value.length, env: typeof env, bindings: Object.keys(globalThis).filter((k) => /^[A-Z_]+$/.test(k)) };
}\n`,
  "memory.ts": `${declare("probe.memory")}export default async function (input: { bytes: number; fill?: boolean }) {
  if (!input.fill) return new Uint8Array(input.bytes).length;
  const keep: number[][] = [];
  for (let i = 0; i < 1e9; i++) keep.push(new Array(1024).fill(i));
  return keep.length;
}\n`,
  "proto.ts": `${declare("probe.proto")}export default async function (input: { pollute: boolean }) {
  if (input.pollute) (Object.prototype as any).isAdmin = true;
  return ({} as any).isAdmin === true ? "polluted" : "clean";
}\n`,
  "big.ts": `${declare("probe.big")}export default async function (input: { mb: number }) {
  return "x".repeat(input.mb * 1024 * 1024);
}\n`,
};

// docs/tools-as-code.md shows examples/tools/csv-stats.ts (its commands, run by readme.check.mjs, add the file): the same code.
const page = readFileSync(join(root, "docs/tools-as-code.md"), "utf8");
const shownScript = /```ts\n([\s\S]*?)```/.exec(page)?.[1] ?? "";
const exampleScript = readFileSync(join(root, "examples/tools/csv-stats.ts"), "utf8").replace(/^(\/\/.*\n)+/, "");
check(
  "docs/tools-as-code.md shows examples/tools/csv-stats.ts as it is (less its opening comment)",
  shownScript.length > 0 && shownScript === exampleScript,
  `${shownScript.length} vs ${exampleScript.length} characters`,
);

let server;
try {
  const port = Number(process.env.SANDBOX_CHECK_PORT) || (await freePort());
  server = await startDevServer({ port, token, persistTo: dir, vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" } });
  const api = (path, init = {}) => call(server.url, path, init);
  const cli = makeCli({ url: server.url, token, project: "", cwd: dir, configHome: join(dir, "config") });

  // A script declares only secrets the project has: set before the scripts are saved.
  for (const [name, value] of [
    ["MINE", "mine-secret-value-1"],
    ["OTHER", "other-secret-value-2"],
  ])
    await api(`/api/projects/default/secrets/${name}`, { method: "PUT", body: JSON.stringify({ value }) });
  for (const [file, source] of Object.entries(scripts)) {
    await writeFile(join(dir, file), source);
    const added = await cli(["tools", "add", join(dir, file)]);
    if (added.code !== 0) throw new Error(`pantheon tools add ${file}: ${added.stderr}`);
  }
  const added = await cli(["tools", "scripts", "--json"]);
  check(
    "pantheon tools add saved every script, listed by pantheon tools scripts",
    JSON.parse(added.stdout).tools.length === Object.keys(scripts).length,
    added.stdout.slice(0, 400),
  );
  const tools = ["probe.loop", "probe.net", "probe.nonet", "probe.secrets", "probe.memory", "probe.proto", "probe.big"];
  const made = await api("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "prober", runtime: { tools } }),
  });
  if (made.status !== 201) throw new Error(`create agent: ${made.status} ${JSON.stringify(made.body)}`);

  const invoke = async (tool, args) => {
    const r = await api(`/api/agents/prober/tools/${tool}/invoke`, {
      method: "POST",
      body: JSON.stringify({ arguments: args }),
    });
    return { status: r.status, text: JSON.stringify(r.body) };
  };

  const endless = await invoke("probe.loop", { endless: true });
  check(
    "an endless loop is stopped at its step limit, answered as the tool's error (not a 500)",
    endless.status === 200 && endless.text.includes("stopped at the step limit"),
    endless.text,
  );
  const bounded = await invoke("probe.loop", { endless: false });
  check(
    "the same tool's bounded loop runs next",
    bounded.status === 200 && bounded.text.includes("1000"),
    bounded.text,
  );

  const reached = await invoke("probe.net", { url: listenerUrl });
  check(
    "a declared host is reached through the outbound guard",
    reached.text.includes("pong") && hits === 1,
    reached.text,
  );
  const metadata = await invoke("probe.net", { url: "http://169.254.169.254/latest/meta-data" });
  check(
    "the metadata address is refused though declared",
    metadata.text.includes("refused") && metadata.text.includes("link-local"),
    metadata.text,
  );
  const undeclared = await invoke("probe.net", { url: listenerUrl.replace("127.0.0.1", "localhost") });
  check(
    "an undeclared host is refused and never reached",
    undeclared.text.includes("refused") && hits === 1,
    undeclared.text,
  );
  const loopback = await invoke("probe.nonet", { url: listenerUrl });
  check(
    "loopback is refused to a script that declares no hosts (it has no network)",
    loopback.text.includes("has no network") && hits === 1,
    loopback.text,
  );

  const mine = await invoke("probe.secrets", { name: "MINE" });
  check(
    "a declared secret is read; env and the worker's bindings are not there",
    mine.text.includes('\\"length\\":19') &&
      mine.text.includes('\\"env\\":\\"undefined\\"') &&
      mine.text.includes('\\"bindings\\":[]'),
    mine.text,
  );
  const other = await invoke("probe.secrets", { name: "OTHER" });
  check(
    "another tool's secret is out of reach",
    other.text.includes("secret 'OTHER' is not declared") && !other.text.includes("other-secret-value-2"),
    other.text,
  );
  const whole = await invoke("probe.secrets", { name: "MINE", whole: true });
  check(
    "a secret the script returns is redacted from the result",
    !whole.text.includes("mine-secret-value-1"),
    whole.text,
  );

  const huge = await invoke("probe.memory", { bytes: 64 * 1024 ** 3 });
  check(
    "a huge allocation fails that call at the memory limit",
    huge.text.includes("stopped at the memory limit"),
    huge.text,
  );
  const small = await invoke("probe.memory", { bytes: 1024 });
  check("the next call allocates and answers", small.text.includes("1024"), small.text);
  // Without the allocation meter this ended the whole local server at V8's heap limit.
  const filled = await invoke("probe.memory", { bytes: 0, fill: true });
  check(
    "a script that fills its heap stops at the memory limit",
    filled.text.includes("stopped at the memory limit"),
    filled.text,
  );
  const after = await invoke("probe.memory", { bytes: 2048 });
  const otherTool = await invoke("probe.proto", { pollute: false });
  check(
    "after it, the next call and another tool answer",
    after.text.includes("2048") && otherTool.text.includes("clean"),
    `${after.text} ${otherTool.text}`,
  );

  const polluted = await invoke("probe.proto", { pollute: true });
  const clean = await invoke("probe.proto", { pollute: false });
  check(
    "a prototype polluted in one call is clean in the next",
    polluted.text.includes("polluted") && clean.text.includes("clean"),
    `${polluted.text} ${clean.text}`,
  );

  const big = await invoke("probe.big", { mb: 50 });
  check(
    "a 50 MB result is refused with a clear error",
    big.status === 200 && big.text.includes("over the limit of 1048576 bytes"),
    big.text.slice(0, 400),
  );
  const fine = await invoke("probe.big", { mb: 0.001 });
  check("a small result passes", fine.status === 200 && fine.text.includes("xxxx"), fine.text.slice(0, 200));

  await api("/api/projects", { method: "POST", body: JSON.stringify({ slug: "elsewhere" }) });
  const inOther = (path, init = {}) => api(path, { ...init, headers: { "x-pantheon-project": "elsewhere" } });
  await inOther("/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "outsider", runtime: { tools: ["probe.loop"] } }),
  });
  const foreign = await inOther("/api/agents/outsider/tools/probe.loop/invoke", {
    method: "POST",
    body: JSON.stringify({ arguments: { endless: false } }),
  });
  check(
    "another project's script tool is out of reach (its agent lists the name, the project has no such tool)",
    foreign.status === 404,
    JSON.stringify(foreign),
  );
  const addedThere = await cli(["tools", "add", join(dir, "loop.ts"), "--project", "elsewhere"]);
  const own = await inOther("/api/agents/outsider/tools/probe.loop/invoke", {
    method: "POST",
    body: JSON.stringify({ arguments: { endless: false } }),
  });
  check(
    "once that project has the tool, its agent runs it",
    addedThere.code === 0 && own.status === 200 && JSON.stringify(own.body).includes("1000"),
    JSON.stringify(own),
  );

  // The CLI's doors of a script's (tool …) form (its :path read beside the script) and of skills.
  await mkdir(join(dir, "dsl", "tools"), { recursive: true });
  await writeFile(
    join(dir, "dsl", "tools", "halve.ts"),
    "export default async (input: { n: number }) => input.n / 2;\n",
  );
  const halver = (path) => `(actor "halver"
  (description "Halves numbers.")
  (tool "num.halve" :description "half a number" :input {:type "object" :properties {:n {:type "number"}}} :path "${path}"))\n`;
  await writeFile(join(dir, "dsl", "halver.pnth"), halver("tools/halve.ts"));
  await writeFile(join(dir, "dsl", "lost.pnth"), halver("tools/none.ts"));
  const lost = await cli(["script", "push", "halver", join(dir, "dsl", "lost.pnth")]);
  const pushed = await cli(["script", "push", "halver", join(dir, "dsl", "halver.pnth")]);
  const halved = await api("/api/agents/halver/tools/num.halve/invoke", {
    method: "POST",
    body: JSON.stringify({ arguments: { n: 9 } }),
  });
  check(
    "pantheon script push refuses a (tool …) :path it cannot read, at its line",
    lost.code !== 0 && lost.stderr.includes("lost.pnth:3:") && lost.stderr.includes('"tools/none.ts" cannot be read'),
    lost.stderr,
  );
  check(
    "pantheon script push sends a (tool …) form's :path file as its source: the tool is saved and the agent runs it",
    pushed.code === 0 && JSON.stringify(halved.body).includes('"output":"4.5"'),
    `${pushed.stderr} ${JSON.stringify(halved.body)}`,
  );

  const skillMd = (name, description, body, requires = "") =>
    `---\nname: ${name}\ndescription: ${description}\n${requires}---\n${body}\n`;
  await mkdir(join(dir, "skills", "csv-basics"), { recursive: true });
  await mkdir(join(dir, "skills", "csv-report", "scripts"), { recursive: true });
  await writeFile(
    join(dir, "skills", "csv-basics", "SKILL.md"),
    skillMd("csv-basics", "Read CSV text", "Split lines."),
  );
  await writeFile(
    join(dir, "skills", "csv-report", "SKILL.md"),
    skillMd("csv-report", "Report on a CSV", "Count columns.", "requires: [csv-basics]\n"),
  );
  await writeFile(join(dir, "skills", "csv-report", "scripts", "stats.ts"), "export default async () => 1;\n");
  const addedSkills = await cli(["skills", "add", join(dir, "skills")]);
  const listedSkills = await cli(["skills", "list", "--json"]);
  const loaded = await api("/api/projects/default/skills/csv-report/load");
  check(
    "pantheon skills add imports each folder with SKILL.md (its files with it); loading one reads what it requires first",
    addedSkills.code === 0 &&
      JSON.parse(listedSkills.stdout)
        .skills.map((s) => s.name)
        .join() === "csv-basics,csv-report" &&
      loaded.body.skills.map((s) => s.name).join() === "csv-basics,csv-report",
    `${addedSkills.stderr} ${listedSkills.stdout} ${JSON.stringify(loaded.body)}`,
  );
} catch (error) {
  check("the sandbox check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  listener.close();
  await rm(dir, { recursive: true, force: true });
}
finish();
