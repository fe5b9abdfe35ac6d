// Every door an agent goes through, once each, through a real local stack (wrangler dev) with the
// real CLI, as the docs tell a new user: `pantheon project import examples/agents.json`, `pantheon
// agents snapshot` and `restore --name` (an agent with a script, here and into another project),
// `pantheon agents export` and `import` (OpenAI and OpenCode). Each agent made answers `pantheon
// tell`, `pantheon agents tick` (a run toward its goals, or a plain refusal when it has none — never a
// 500) and `pantheon agents show` (a row for every field core/agents/definition.ts declares it shows).
// Prints `N passed, N failed` last. PANTHEON_CHECK_PORT picks the port (else a free one).
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks, makeCli, makeProjectCall, makeTenant } from "./check-kit.mjs";
import { root } from "./cli-stack.mjs";
import "./ts-resolve.mjs";

const { cliShownFields } = await import("../../core/agents/views.ts");

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-doors-"));
const { check, finish } = makeChecks();
const cli = makeCli({ cwd: persistTo, configHome: join(persistTo, "config"), timeoutMs: 120_000, input: "" });
const shown = (r) => JSON.stringify({ code: r.code, stdout: r.stdout.slice(0, 600), stderr: r.stderr.slice(0, 600) });

// The rows `pantheon agents show` prints for the fields the declaration marks `shows` for it.
const shownRows = [...new Set(cliShownFields().map((f) => f.label))];

const keeper = `; keeps the shelves
(actor "keeper"
  (role "librarian")
  (description "Keeps the shelves in order.")
  (model :provider "offline" :name "offline")
  (goals "Shelve every returned book")
  (tools "clock.now")
  (talent "shelving"
    (behavior "tidy" :persistent
      (every "1h")
      (goal (input) "Tidy the shelves")
      (plan (input ctx) (think)))))`;

let server;
try {
  const port = Number(process.env.PANTHEON_CHECK_PORT) || (await freePort());
  server = await startDevServer({ port, token, persistTo });
  const call = makeProjectCall(server.url);
  const a = await makeTenant(call, token, "doors-a");
  const b = await makeTenant(call, token, "doors-b");
  const as = (t) => ({ env: { PANTHEON_URL: server.url, PANTHEON_TOKEN: t.token, PANTHEON_PROJECT: t.slug } });

  // --- each door once ------------------------------------------------------------------------------
  const imported = await cli(["project", "import", join(root, "examples/agents.json")], as(a));
  check("pantheon project import examples/agents.json exits 0", imported.code === 0, shown(imported));

  const put = await a.call("/api/agents/keeper/script", {
    method: "PUT",
    body: keeper,
    headers: { "content-type": "text/x-pantheon" },
  });
  check("an agent with a script (role, goals, a scheduled behavior) is made", put.status === 201, put.text);

  const file = join(persistTo, "keeper.snapshot.jsonl");
  const snap = await cli(["agents", "snapshot", "keeper", "--out", file], as(a));
  check("pantheon agents snapshot keeper --out writes the file", snap.code === 0, shown(snap));
  const copy = await cli(["agents", "restore", file, "--name", "keeper-copy"], as(a));
  check("pantheon agents restore --name keeper-copy restores under a new name", copy.code === 0, shown(copy));
  const moved = await cli(["agents", "restore", file], as(b));
  check("pantheon agents restore into another project exits 0", moved.code === 0, shown(moved));
  const renamed = await a.call("/api/agents/keeper-copy/script");
  check(
    "the copy's script is its own: the actor is renamed in the source and the compiled script",
    renamed.body?.source?.includes('(actor "keeper-copy"') && renamed.body?.script?.name === "keeper-copy",
    renamed.text.slice(0, 300),
  );

  for (const [format, ext] of [
    ["openai", "json"],
    ["opencode", "md"],
  ]) {
    const out = join(persistTo, `keeper.${format}.${ext}`);
    const exported = await cli(["agents", "export", "keeper", "--format", format, "--out", out], as(a));
    check(
      `pantheon agents export --format ${format} names what it cannot hold (goals, role) on stderr`,
      exported.code === 0 && exported.stderr.includes("goals") && exported.stderr.includes("role"),
      shown(exported),
    );
    const read = await cli(["agents", "import", out, "--format", format, "--name", `keeper-${format}`], as(b));
    check(`pantheon agents import --format ${format} makes keeper-${format}`, read.code === 0, shown(read));
    // The display name examples/agents.json gives `main` ("Main Agent") has no place in a format: named.
    const main = await cli(
      ["agents", "export", "main", "--format", format, "--out", join(persistTo, `main.${ext}`)],
      as(a),
    );
    check(
      `pantheon agents export main --format ${format} names its display name on stderr (keeper, without one, does not)`,
      main.code === 0 && main.stderr.includes("displayName") && !exported.stderr.includes("displayName"),
      shown(main),
    );
  }

  // --- every agent made answers, ticks and shows ---------------------------------------------------
  const made = [
    [a, "main", false],
    [a, "airtable", false],
    [a, "keeper-copy", true],
    [b, "keeper", true],
    [b, "keeper-openai", false],
    [b, "keeper-opencode", false],
  ];
  for (const [t, agent, hasGoals] of made) {
    const told = await cli(["tell", agent, "are you there?"], as(t));
    check(`${t.slug}/${agent} answers pantheon tell`, told.code === 0 && told.stdout.trim().length > 0, shown(told));
    const tick = await cli(["agents", "tick", agent], as(t));
    check(
      hasGoals
        ? `${t.slug}/${agent} ticks toward its carried goals`
        : `${t.slug}/${agent} without goals: the tick says so (exit 1), never a 500`,
      hasGoals
        ? tick.code === 0
        : tick.code === 1 && tick.stderr.includes("no standing goals") && !tick.stderr.includes("500"),
      shown(tick),
    );
    const show = await cli(["agents", "show", agent], as(t));
    check(
      `pantheon agents show ${agent} prints every row the definition says it shows`,
      show.code === 0 &&
        shownRows.every((row) => new RegExp(`^${row}:`, "m").test(show.stdout)) &&
        !show.stderr.includes("TypeError"),
      shown(show),
    );
    if (hasGoals)
      check(
        `${agent}'s role and goals came through the door`,
        show.stdout.includes("librarian") && show.stdout.includes("Shelve every returned book"),
        shown(show),
      );
  }
} catch (error) {
  check("the agent doors check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}

finish();
