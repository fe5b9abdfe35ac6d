// Snapshots through a real local stack (wrangler dev) with the real CLI: `pantheon agents snapshot`
// writes one file holding an agent's configuration, sessions, messages and memories (a history
// large enough to need several request slices); `pantheon agents restore` makes it again in another
// project, where every session, message and memory reads back as it was; a restore cut off after
// its first slice is finished by `--into-existing` without doubling anything; a taken name and
// another project's token are refused. Prints `N passed, N failed` last.
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks, makeCli, makeProjectCall, makeTenant } from "./check-kit.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-snapshot-"));
const { check, finish } = makeChecks();

/** `pantheon <args>`, URL, token and project from the `env` given (a snapshot may be large: 64 MiB of output). */
const cli = makeCli({
  cwd: persistTo,
  configHome: join(persistTo, "config"),
  timeoutMs: 120_000,
  maxBuffer: 64 * 1024 * 1024,
  input: "",
});
const shown = (r) => JSON.stringify({ code: r.code, stdout: r.stdout.slice(0, 800), stderr: r.stderr.slice(0, 800) });

/** Every session with its messages (id, role, content, time), and every memory (id, kind, text, times). */
async function everything(tenant, agent) {
  const sessions = (await tenant.call(`/api/agents/${agent}/sessions`)).body.sessions;
  const messages = {};
  for (const s of sessions) {
    const all = [];
    for (let cursor; ; ) {
      const page = (
        await tenant.call(
          `/api/agents/${agent}/messages?session=${s.id}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        )
      ).body;
      all.push(...page.messages.map(({ id, role, content, createdAt }) => ({ id, role, content, createdAt })));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    messages[s.id] = all;
  }
  const exported = (await tenant.call(`/api/agents/${agent}/memories/export`)).text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const memories = exported.map(({ id, kind, text, createdAt, occurredAt, supersededBy }) => ({
    id,
    kind,
    text,
    createdAt,
    occurredAt,
    supersededBy,
  }));
  return { sessions: sessions.map(({ id, title, isDefault }) => ({ id, title, isDefault })), messages, memories };
}

let server;
try {
  server = await startDevServer({ port: await freePort(), token, persistTo });
  const call = makeProjectCall(server.url);
  const a = await makeTenant(call, token, "snap-a");
  const b = await makeTenant(call, token, "snap-b");
  const asA = { PANTHEON_URL: server.url, PANTHEON_TOKEN: a.token, PANTHEON_PROJECT: a.slug };
  const asB = { PANTHEON_URL: server.url, PANTHEON_TOKEN: b.token, PANTHEON_PROJECT: b.slug };

  // --- an agent with a history worth keeping ----------------------------------------------------
  await a.call("/api/agents", {
    method: "POST",
    body: JSON.stringify({
      name: "scout",
      systemPrompt: "You scout venues for Ana. Be brief.",
      runtime: { tools: ["clock.now"] },
    }),
  });
  for (const content of ["hello, I am Ana", "I like the tram museum", "what time is it?"])
    await a.call("/api/agents/scout/messages", { method: "POST", body: JSON.stringify({ content }) });
  const side = (
    await a.call("/api/agents/scout/sessions", { method: "POST", body: JSON.stringify({ title: "Porto weekend" }) })
  ).body;
  await a.call("/api/agents/scout/messages", {
    method: "POST",
    body: JSON.stringify({ content: "find a quiet café", session: side.id }),
  });
  // 240 memories of about 600 characters: a snapshot of some 150 KB, restored in three slices or more.
  const filler = "The venue keeps a quiet room upstairs with a view of the river and good light. ".repeat(7);
  for (let start = 0; start < 240; start += 60) {
    const body = Array.from({ length: 60 }, (_, i) =>
      JSON.stringify({ kind: "fact", text: `Venue ${start + i}: ${filler}`, occurredAt: "2024-05-03" }),
    ).join("\n");
    await a.call("/api/agents/scout/memories/import", {
      method: "POST",
      body,
      headers: { "content-type": "application/x-ndjson" },
    });
  }
  const before = await everything(a, "scout");
  // The agent may have kept a memory of its own from the chat (the offline model extracts facts too).
  const kept = before.memories.length;
  const memoriesText = `${kept} memories`;
  check(
    "the agent has two sessions, eight messages and the 240 imported memories (and any it kept) before its snapshot",
    before.sessions.length === 2 && Object.values(before.messages).flat().length === 8 && kept >= 240,
    JSON.stringify({ sessions: before.sessions, memories: before.memories.length }),
  );

  // --- snapshot, then restore into another project ------------------------------------------------
  const file = join(persistTo, "scout.snapshot.jsonl");
  const taken = await cli(["agents", "snapshot", "scout", "--out", file], { env: asA });
  const text = await readFile(file, "utf8").catch(() => "");
  check(
    "pantheon agents snapshot scout --out file writes one JSON-lines file with a header and says what it holds",
    taken.code === 0 &&
      text.startsWith('{"type":"snapshot"') &&
      taken.stderr.includes(`Snapshot of scout: 2 sessions, 8 messages, ${memoriesText}.`),
    shown(taken),
  );
  check(
    "the snapshot is larger than one request may carry (so the restore goes in slices)",
    text.length > 128 * 1024,
    `${text.length} characters`,
  );

  const restored = await cli(["agents", "restore", file, "--name", "copy"], { env: asB });
  check(
    "pantheon agents restore file --name copy (project b's token) makes the agent and restores everything",
    restored.code === 0 && restored.stdout.includes(`Restored 2 sessions, 8 messages and ${memoriesText} into copy.`),
    shown(restored),
  );
  const after = await everything(b, "copy");
  check(
    "in project b every session, message and memory reads back as it was in a (ids, text, times)",
    JSON.stringify(after) === JSON.stringify(before),
    JSON.stringify({
      sessions: after.sessions,
      messages: Object.values(after.messages).flat().length,
      memories: after.memories.length,
    }),
  );
  const copy = (await b.call("/api/agents/copy")).body;
  check(
    "the configuration came with it: instructions and tools",
    copy?.systemPrompt === "You scout venues for Ana. Be brief." && copy?.runtime?.tools?.includes("clock.now"),
    JSON.stringify(copy).slice(0, 400),
  );
  const answer = await b.call("/api/agents/copy/messages", {
    method: "POST",
    body: JSON.stringify({ content: "still there?" }),
  });
  check(
    "the restored agent answers in its restored default session",
    answer.status === 200 && answer.body?.sessionId === before.sessions.find((s) => s.isDefault)?.id,
    JSON.stringify(answer.body).slice(0, 300),
  );

  // --- a restore cut off after its first slice, finished by running it again -------------------
  const headerLine = text.slice(0, text.indexOf("\n") + 1);
  const firstSlice = text.slice(headerLine.length).split("\n").slice(0, 40).join("\n");
  const cut = await b.call("/api/agents/half/snapshot/restore", {
    method: "POST",
    body: headerLine + firstSlice,
    headers: { "content-type": "application/x-ndjson" },
  });
  check(
    "a restore cut off after its header and first lines leaves a partial agent (201)",
    cut.status === 201 && cut.body?.created === true,
    JSON.stringify(cut.body).slice(0, 300),
  );
  const again = await cli(["agents", "restore", file, "--name", "half"], { env: asB });
  check(
    "restoring into a taken name without --into-existing exits 1 naming the way to finish it",
    again.code === 1 && again.stderr.includes("--into-existing"),
    shown(again),
  );
  const finished = await cli(["agents", "restore", file, "--name", "half", "--into-existing"], { env: asB });
  check(
    "--into-existing finishes it, counting what was already there",
    finished.code === 0 && /Restored .* into half \(\d+ already there\)\./.test(finished.stdout),
    shown(finished),
  );
  const half = await everything(b, "half");
  check(
    "the finished restore holds exactly what the snapshot holds: nothing doubled, nothing missing",
    JSON.stringify(half) === JSON.stringify(before),
    JSON.stringify({ messages: Object.values(half.messages).flat().length, memories: half.memories.length }),
  );

  // --- refusals beside the positive controls above -------------------------------------------------
  const stolen = await cli(["agents", "snapshot", "scout"], { env: { ...asB, PANTHEON_PROJECT: a.slug } });
  check(
    "project b's token cannot take a snapshot of project a's agent (exit 1, 401)",
    stolen.code === 1 && !stolen.stdout.includes('"type":"snapshot"'),
    shown(stolen),
  );
  const notAFile = await cli(["agents", "restore", join(persistTo, "missing.jsonl")], { env: asB });
  check(
    "restoring a file that does not exist exits 2 naming it",
    notAFile.code === 2 && notAFile.stderr.includes("no such file"),
    shown(notAFile),
  );
} catch (error) {
  check("the snapshot check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await rm(persistTo, { recursive: true, force: true });
}

finish();
