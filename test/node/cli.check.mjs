// The `pantheon` CLI against a real local stack (wrangler dev): each check runs the real binary
// (`node cli/pantheon.ts`) as an operator would, in a child process, and reads its stdout, stderr
// and exit code: help and usage errors (exit 2), an agent's life (agents, tell, chat, history,
// sessions, runs and approvals, scripts, schedules, memory, context, tools) and --json.
// Projects, interop, tokens, doctor, login and the refusals are cli-admin.check.mjs; the stack and
// the CLI runner both use are in cli-stack.mjs. Prints `N passed, N failed` as the last line.
//
// Tool conversion (`tools … --format`) is the shared contract's; where this server answers 404
// "no route" for it, those checks print `skip` with the reason instead of failing.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parsed, root, runCliChecks, shown } from "./cli-stack.mjs";

await runCliChecks("CLI check", async ({ check, checkOrSkip, cli, run, api, call, env, server, persistTo }) => {
  // --- health, help, usage -----------------------------------------------------------------
  const health = await run("health");
  check("health says the server is up", health.code === 0 && health.stdout.includes("ok: Pantheon"), shown(health));
  const help = await run("--help");
  const families = [
    "login",
    "project",
    "agents",
    "tell",
    "chat",
    "runs",
    "script",
    "memory",
    "context",
    "tools",
    "schedules",
    "tokens",
    "doctor",
    "gateway",
  ];
  check(
    "--help lists every command family and the exit codes",
    help.code === 0 &&
      families.every((f) => new RegExp(`^  ${f}\\s`, "m").test(help.stdout)) &&
      help.stdout.includes("3 the server is not reachable"),
    shown(help),
  );
  const helps = await Promise.all(
    [
      ["agents", "--help"],
      ["memory", "import", "--help"],
      ["runs", "--help"],
      ["context", "preview", "--help"],
      ["tools", "export", "--help"],
      ["chat", "--help"],
    ].map((a) => run(...a)),
  );
  check(
    "--help works on every level (a family, one action)",
    helps.every((h) => h.code === 0 && h.stdout.includes("Usage:")) &&
      helps[1].stdout.includes("pantheon memory import <agent> <file.jsonl>"),
    helps.map(shown).join(" "),
  );
  const typo = await run("agents", "frobnicate");
  check(
    "an unknown action is a usage error: exit 2 naming the actions",
    typo.code === 2 &&
      typo.stderr.includes("unknown action 'frobnicate'") &&
      typo.stderr.includes("list, show, create"),
    shown(typo),
  );
  const badFlag = await run("agents", "list", "--nope");
  check(
    "an unknown option is a usage error (exit 2)",
    badFlag.code === 2 && badFlag.stderr.includes("--nope"),
    shown(badFlag),
  );
  const noAgent = await run("runs", "show");
  check(
    "a missing argument is a usage error (exit 2)",
    noAgent.code === 2 && noAgent.stderr.includes("name the agent and the run"),
    shown(noAgent),
  );

  // --- agents ------------------------------------------------------------------------------
  const created = await run(
    "agents",
    "create",
    "scout",
    "--description",
    "Finds things",
    "--system-prompt",
    "You are Scout. The launch code word is pineapple.",
  );
  check(
    "agents create makes the agent",
    created.code === 0 && created.stdout.includes("Created agent scout"),
    shown(created),
  );
  await run("agents", "create", "helper", "--description", "Helps");
  const listed = await run("agents", "list");
  check(
    "agents list shows it with its status and description",
    listed.code === 0 && /scout\s+idle\s+offline:offline/.test(listed.stdout) && listed.stdout.includes("Finds things"),
    shown(listed),
  );
  const raw = await run("agents", "list", "--json");
  check(
    "--json prints the API's JSON",
    parsed(raw)?.agents?.some((a) => a.name === "scout"),
    shown(raw),
  );
  const showed = await run("agents", "show", "scout");
  check(
    "agents show prints the agent's fields",
    showed.code === 0 && /^name:\s+scout$/m.test(showed.stdout) && showed.stdout.includes("pineapple"),
    shown(showed),
  );
  const connected = await run("agents", "connect", "scout", "helper");
  const connections = await api("/api/agents/scout/connections");
  check(
    "agents connect adds a connection",
    connected.code === 0 && JSON.stringify(connections?.connections) === '["helper"]',
    shown(connected),
  );
  const disconnected = await run("agents", "disconnect", "scout", "helper", "--json");
  check(
    "agents disconnect removes it (--json answers the API's)",
    disconnected.code === 0 && JSON.stringify(parsed(disconnected)?.connections) === "[]",
    shown(disconnected),
  );
  const invalid = await run("agents", "create", "Not_A_Slug");
  check(
    "a validation error exits 1 and names the field",
    invalid.code === 1 &&
      invalid.stderr.includes("Error:") &&
      /-\s+name: must be a lower-case slug/.test(invalid.stderr) &&
      invalid.stdout === "",
    shown(invalid),
  );

  // --- tell, chat one-shot, history, sessions ----------------------------------------------
  const told = await run("tell", "scout", "What is the launch code word?");
  const stored = await api("/api/agents/scout/messages");
  const reply = stored.messages?.[0];
  check(
    "tell streams the agent's reply to stdout",
    told.code === 0 &&
      reply?.role === "assistant" &&
      reply.content.length > 0 &&
      told.stdout.trim() === reply.content.trim() &&
      /pineapple/i.test(told.stdout),
    `${shown(told)} stored=${JSON.stringify(reply)}`,
  );
  const oneShot = await run("chat", "scout", "hello there");
  check(
    'chat <agent> "<message>" is still one streamed turn',
    oneShot.code === 0 && oneShot.stdout.trim().length > 0,
    shown(oneShot),
  );
  const noTerminal = await run("chat", "scout");
  check(
    "chat without a terminal is a usage error pointing to tell (exit 2)",
    noTerminal.code === 2 && noTerminal.stderr.includes("pantheon tell"),
    shown(noTerminal),
  );
  const piped = await cli(["tell", "scout", "-"], { env, input: "My name is Ann.\n" });
  check("tell reads the message from stdin with '-'", piped.code === 0 && piped.stdout.trim().length > 0, shown(piped));
  const history = await run("history", "scout", "--limit", "2");
  const lines = history.stdout.trim().split("\n");
  check(
    "history shows the last turn oldest first",
    history.code === 0 &&
      lines.length === 2 &&
      /\buser\s+My name is Ann\./.test(lines[0]) &&
      lines[1].includes("assistant"),
    shown(history),
  );
  const sessions = await run("sessions", "scout", "--json");
  check(
    "sessions lists the default session",
    parsed(sessions)?.sessions?.some((s) => s.isDefault),
    shown(sessions),
  );

  // --- runs: list, show, approve, reject, cancel, approvals ---------------------------------
  const runId = (await api("/api/agents/scout/runs")).runs?.at(-1)?.id;
  const runs = await run("runs", "list", "scout");
  check(
    "runs list lists the run with its status",
    runs.code === 0 && Boolean(runId) && new RegExp(`${runId}\\s+completed\\s+message`).test(runs.stdout),
    shown(runs),
  );
  const bare = await run("runs", "scout");
  check("runs <agent> is runs list <agent>", bare.code === 0 && bare.stdout === runs.stdout, shown(bare));
  const trace = await run("runs", "show", "scout", runId ?? "missing");
  check(
    "runs show prints each step with kind, name and duration",
    trace.code === 0 &&
      /\bstate\s+run_started\s+\d+(\.\d)? m?s/.test(trace.stdout) &&
      /\bmodel\s+model_result\s+\d/.test(trace.stdout) &&
      trace.stdout.includes("run_finished"),
    shown(trace),
  );
  await api("/api/agents/scout", {
    method: "PATCH",
    body: JSON.stringify({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } }),
  });
  const gated = await run("tell", "scout", "/tool clock.now {}");
  const waiting = (await api("/api/agents/scout/runs")).runs?.find((r) => r.status === "waiting_approval");
  check(
    "tell says when a run waits for approval, with the command to decide",
    gated.code === 0 &&
      gated.stderr.includes("Waiting for approval") &&
      Boolean(waiting) &&
      gated.stderr.includes(`pantheon runs approve scout ${waiting?.id}`),
    shown(gated),
  );
  const pending = await run("approvals", "--json");
  check(
    "approvals lists the waiting call",
    parsed(pending)?.approvals?.some((a) => a.runId === waiting?.id && a.tool === "clock.now"),
    shown(pending),
  );
  const approved = await run("runs", "approve", "scout", waiting?.id ?? "missing");
  const afterApproval = await api(`/api/agents/scout/runs/${waiting?.id}`);
  check(
    "runs approve lets the call run and the run finish",
    approved.code === 0 && approved.stdout.includes("Approved") && afterApproval?.run?.status === "completed",
    `${shown(approved)} ${JSON.stringify(afterApproval?.run?.status)}`,
  );
  await run("tell", "scout", "/tool clock.now {}");
  const second = (await api("/api/agents/scout/runs")).runs?.find((r) => r.status === "waiting_approval");
  const rejected = await run("runs", "reject", "scout", second?.id ?? "missing", "--reason", "not now");
  check("runs reject refuses the call", rejected.code === 0 && rejected.stdout.includes("Rejected"), shown(rejected));
  await run("tell", "scout", "/tool clock.now {}");
  const third = (await api("/api/agents/scout/runs")).runs?.find((r) => r.status === "waiting_approval");
  const cancelled = await run("runs", "cancel", "scout", third?.id ?? "missing");
  const afterCancel = await api(`/api/agents/scout/runs/${third?.id}`);
  check(
    "runs cancel cancels a run that has not finished",
    cancelled.code === 0 && cancelled.stdout.includes("cancelled") && afterCancel?.run?.status === "cancelled",
    shown(cancelled),
  );
  const again = await run("runs", "cancel", "scout", third?.id ?? "missing");
  check(
    "cancelling a finished run is refused: exit 1 with the API's reason",
    again.code === 1 && again.stderr.includes("already cancelled"),
    shown(again),
  );
  await api("/api/agents/scout", {
    method: "PATCH",
    body: JSON.stringify({ runtime: { tools: ["clock.now"], approvalRequired: [] } }),
  });

  // --- script push, pull, check --------------------------------------------------------------
  const scriptFile = join(persistTo, "scout.json");
  await writeFile(
    scriptFile,
    JSON.stringify({
      name: "scout",
      description: "Finds things fast",
      model: { provider: "offline", name: "offline" },
    }),
  );
  const put = await run("script", "push", "scout", scriptFile);
  const got = await run("script", "pull", "scout");
  check(
    "script push sends a JSON script and script pull prints its source",
    put.code === 0 && got.code === 0 && got.stdout.includes("Finds things fast"),
    `${shown(put)} ${shown(got)}`,
  );
  const buddy = await run("script", "push", "dev-buddy", join(root, "examples/dev-buddy.pnth"));
  check(
    "script push of a DSL file creates the agent",
    buddy.code === 0 && buddy.stdout.includes("Script for dev-buddy saved"),
    shown(buddy),
  );
  const broken = join(persistTo, "broken.pnth");
  await writeFile(broken, '(actor "x"\n  (description "d")\n  (talent "t" (behavior "b" :sometimes)))\n');
  const checked = await cli(["script", "check", broken, join(root, "examples/main.pnth")], {
    env: { PANTHEON_URL: "http://127.0.0.1:9" },
  });
  check(
    "script check compiles locally (no server needed) and prints file:line:col: message, exit 1",
    checked.code === 1 &&
      new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3:\\d+: .+`, "m").test(checked.stdout) &&
      !checked.stdout.includes("main.pnth:"),
    shown(checked),
  );
  const clean = await cli(["script", "check", join(root, "examples/main.pnth")]);
  check("script check of a good file exits 0", clean.code === 0, shown(clean));

  // --- schedules -----------------------------------------------------------------------------
  const scheduled = await run("schedules", "list", "dev-buddy");
  check(
    "schedules list shows the script's scheduled behavior",
    scheduled.code === 0 && /dev-buddy\s+review\/review-open-diffs\s+passive/.test(scheduled.stdout),
    shown(scheduled),
  );
  const paused = await run("schedules", "pause", "dev-buddy", "review-open-diffs");
  const pausedList = await run("schedules", "list", "dev-buddy", "--json");
  check(
    "schedules pause pauses it",
    paused.code === 0 &&
      parsed(pausedList)?.schedules?.find((s) => s.behavior === "review-open-diffs")?.paused === true,
    `${shown(paused)} ${shown(pausedList)}`,
  );
  const resumed = await run("schedules", "resume", "dev-buddy", "review-open-diffs");
  const resumedList = await run("schedules", "list", "--json");
  check(
    "schedules resume restarts it; list without an agent covers every agent",
    resumed.code === 0 &&
      parsed(resumedList)
        ?.agents?.find((a) => a.agent === "dev-buddy")
        ?.schedules?.find((s) => s.behavior === "review-open-diffs")?.paused === false,
    shown(resumedList),
  );

  // --- memory --------------------------------------------------------------------------------
  const remembered = await api("/api/agents/scout/memories", {
    method: "POST",
    body: JSON.stringify({ text: "Ann's favourite fruit is the mango", kind: "fact" }),
  });
  const memList = await run("memory", "list", "scout");
  check(
    "memory list shows memories in a table",
    memList.code === 0 && memList.stdout.includes(remembered?.id ?? "missing") && memList.stdout.includes("mango"),
    shown(memList),
  );
  const searched = await run("memory", "search", "scout", "favourite fruit", "--json");
  check(
    "memory search finds it (--json)",
    parsed(searched)?.memories?.some((m) => m.id === remembered?.id),
    shown(searched),
  );
  const memShow = await run("memory", "show", "scout", remembered?.id ?? "missing");
  check(
    "memory show prints one memory",
    memShow.code === 0 && /^text:\s+Ann's favourite fruit is the mango$/m.test(memShow.stdout),
    shown(memShow),
  );
  const status = await run("memory", "status", "scout", "--json");
  check(
    "memory status reports counts and the embedder",
    typeof parsed(status)?.total === "number" && parsed(status).total >= 1 && Boolean(parsed(status).embedder?.model),
    shown(status),
  );
  const exportFile = join(persistTo, "memories.jsonl");
  const exported = await run("memory", "export", "scout", "--out", exportFile);
  const exportedText = await readFile(exportFile, "utf8").catch(() => "");
  check(
    "memory export writes JSON lines",
    exported.code === 0 &&
      exportedText.includes("mango") &&
      exportedText
        .trim()
        .split("\n")
        .every((l) => JSON.parse(l)),
    shown(exported),
  );
  // Enough lines to need several requests (the server takes 64 KiB a request), and one bad line.
  const many = Array.from({ length: 400 }, (_, i) =>
    JSON.stringify({ kind: "fact", text: `Imported fact number ${i}: ${"filler ".repeat(40)}` }),
  );
  many.splice(250, 0, "{ not json");
  const importFile = join(persistTo, "import.jsonl");
  await writeFile(importFile, `${many.join("\n")}\n`);
  const imported = await run("memory", "import", "helper", importFile);
  const helperStatus = await api("/api/agents/helper/memories/status");
  const progressLines = imported.stderr.split("\n").filter((l) => l.startsWith(`importing ${importFile}:`));
  check(
    "memory import sends the file in slices, shows progress, keeps good lines and names the bad one by its file line",
    imported.code === 0 &&
      progressLines.length >= 2 &&
      progressLines.at(-1)?.includes("401/401 lines (100%), 400 imported, 1 refused") &&
      imported.stderr.includes(`${importFile}:251:`) &&
      imported.stdout.includes("Imported 400 memories") &&
      helperStatus?.total >= 400,
    `${shown(imported)} total=${helperStatus?.total}`,
  );
  // A line nested past the server's limit refuses its slice whole (a 400 naming the slice's line):
  // the CLI names the file's line and what the slices before it imported.
  const deepFile = join(persistTo, "deep.jsonl");
  const deepLines = many.filter((l) => l.startsWith("{")).slice(0, 300);
  deepLines.push("[".repeat(10_000) + "]".repeat(10_000));
  await writeFile(deepFile, `${deepLines.join("\n")}\n`);
  const deep = await run("memory", "import", "helper", deepFile);
  check(
    "memory import names a line nested too deep by its file line (not its slice's) and exits 1",
    deep.code === 1 &&
      deep.stderr.includes(`${deepFile}:301: JSON nested deeper than 64 levels`) &&
      /memories imported before it/.test(deep.stderr),
    shown(deep),
  );
  const forgotten = await run("memory", "delete", "scout", remembered?.id ?? "missing");
  const gone = await call(server.url, `/api/agents/scout/memories/${remembered?.id}`);
  check(
    "memory delete forgets it",
    forgotten.code === 0 && gone.body?.supersededBy === undefined && (gone.status === 404 || gone.body?.deletedAt),
    `${shown(forgotten)} ${gone.status}`,
  );

  // --- context -------------------------------------------------------------------------------
  const preview = await run("context", "preview", "scout", "what fruit does Ann like?", "--json");
  const previewTable = await run("context", "preview", "scout", "what fruit does Ann like?");
  check(
    "context preview shows what the model would see (table and --json)",
    Array.isArray(parsed(preview)?.messages) &&
      typeof parsed(preview)?.tokens?.budget === "number" &&
      /tokens/.test(previewTable.stdout) &&
      previewTable.stdout.includes("ROLE"),
    `${shown(preview)} ${shown(previewTable)}`,
  );

  // --- tools -----------------------------------------------------------------------------------
  const toolList = await run("tools", "list", "scout");
  check(
    "tools list shows the agent's tools",
    toolList.code === 0 && /memory\.search\s+builtin/.test(toolList.stdout),
    shown(toolList),
  );
  const asOpenAi = await run("tools", "export", "scout", "--format", "openai");
  checkOrSkip(
    "tools export --format openai prints OpenAI function tools",
    asOpenAi,
    asOpenAi.code === 0 && parsed(asOpenAi)?.some?.((t) => t.type === "function" && t.function?.name),
  );
  const mcpFile = join(persistTo, "mcp-tools.json");
  await writeFile(
    mcpFile,
    JSON.stringify({
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
    }),
  );
  const toolImport = await run("tools", "import", "scout", mcpFile, "--format", "mcp");
  checkOrSkip(
    "tools import --format mcp imports a tools/list result (declared, with a warning: no endpoint)",
    toolImport,
    toolImport.code === 0 && toolImport.stdout.includes("get_weather") && toolImport.stderr.includes("warning"),
  );
  const badFormat = await run("tools", "export", "scout", "--format", "yaml");
  check(
    "tools --format names the formats on a mistake (exit 2)",
    badFormat.code === 2 && badFormat.stderr.includes("mcp, openai, anthropic"),
    shown(badFormat),
  );
});
