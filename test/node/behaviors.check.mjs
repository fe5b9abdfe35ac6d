// Behaviors and goals on a real local stack (wrangler dev), with an OpenAI-compatible stand-in run
// here (outside workerd) that records every model request: two active behaviors and one message give
// one stored message and one reply; the example dev-buddy script, verbatim, stores the person's words
// and its model sees them with the goal in its context; goals through the real CLI (`agents create
// --role --goal`, `agents goals`, `agents tick`). Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks, makeCli } from "./check-kit.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const token = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-behaviors-"));
const { check, finish } = makeChecks();
const call = makeCall(token);
const shown = (value) => JSON.stringify(value).slice(0, 800);

/** The stand-in: answers "reply to: <the last user message>", recording each request's model and messages. */
const requests = [];
const model = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const parsed = body ? JSON.parse(body) : {};
  const messages = parsed.messages ?? [];
  // The memory extraction after a turn has its own system prompt: answered with no memories, not recorded.
  const extraction = messages.some(
    (m) => m.role === "system" && /extract|memor/i.test(String(m.content)) && /JSON/.test(String(m.content)),
  );
  if (!extraction) requests.push({ model: parsed.model, messages });
  const last = [...messages].reverse().find((m) => m.role === "user");
  const reply = (message, finish = "stop") => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "c1",
        object: "chat.completion",
        created: 0,
        model: parsed.model,
        choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      }),
    );
  };
  if (!extraction && parsed.model === "sup-child" && requestsOf("sup-child").length <= 2) {
    // The supervised child's first two runs fail (a 400 is not retried by the SDK).
    res.writeHead(400, { "content-type": "application/json" });
    return res.end(
      JSON.stringify({
        error: { message: `child failure ${requestsOf("sup-child").length}`, type: "invalid_request_error" },
      }),
    );
  }
  if (!extraction && parsed.model === "sup-boss") {
    const tool = messages.find((m) => m.role === "tool");
    if (tool) return reply({ content: `boss got: ${tool.content}` });
    const spawn = {
      script: '(actor "sup-worker" (description "Finds the answer.") (model :provider "openai" :name "sup-child"))',
      goal: "Find the answer.",
      supervise: { restart: "on-failure", maxRestarts: 2, backoff: "1s", onDone: "archive" },
    };
    return reply(
      {
        content: null,
        tool_calls: [
          { id: "call_spawn", type: "function", function: { name: "agent.spawn", arguments: JSON.stringify(spawn) } },
        ],
      },
      "tool_calls",
    );
  }
  reply({ content: extraction ? '{"memories":[]}' : `reply to: ${last?.content ?? ""}` });
});
await new Promise((resolve) => model.listen(0, "127.0.0.1", resolve));
const modelUrl = `http://127.0.0.1:${model.address().port}`;
const requestsOf = (name) => requests.filter((r) => r.model === name);
const systemOf = (request) =>
  request.messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");

/** `pantheon <args>` as an operator runs it (the real CLI in a child process). */
const cli = makeCli({
  url: () => server.url,
  token,
  project: "",
  cwd: persistTo,
  configHome: join(persistTo, "config"),
});

let server;
try {
  server = await startDevServer({
    port: await freePort(),
    token,
    persistTo,
    vars: {
      PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true",
      OPENAI_API_KEY: "sk-stand-in",
      OPENAI_BASE_URL: `${modelUrl}/v1`,
    },
  });
  const api = (path, init) => call(server.url, path, init);
  const history = async (name) =>
    ((await api(`/api/agents/${name}/messages?limit=50`)).body?.messages ?? [])
      .map((m) => `${m.role}: ${m.content}`)
      .reverse();
  const putScript = (name, source) =>
    api(`/api/agents/${name}/script`, { method: "PUT", headers: { "content-type": "text/x-pantheon" }, body: source });

  // --- two active behaviors, one message ----------------------------------------------------------
  const twoActive = `(actor "greeter" (description "Greets and logs")
    (talent "chat"
      (behavior "greet" :active (goal (input) (concat "Greet: " (get input "text"))) (plan (input ctx) (message "assistant" :content "Hello from greet")))
      (behavior "log" :active (goal (input) (concat "log: " (get input "text"))) (plan (input ctx) (message "assistant" :content (concat "said: " (get input "text")))))))`;
  const put = await putScript("greeter", twoActive);
  check("a script with two active behaviors is set", put.status === 201, shown(put));
  const sent = await api("/api/agents/greeter/messages", {
    method: "POST",
    body: JSON.stringify({ content: "hi there" }),
  });
  check(
    "one message gets one reply, from the first active behavior",
    sent.status === 200 &&
      sent.body?.reply?.content === "Hello from greet" &&
      sent.body?.userMessage?.content === "hi there",
    shown(sent),
  );
  const greeted = await history("greeter");
  check(
    "the history holds the person's words once and one reply",
    shown(greeted) === shown(["user: hi there", "assistant: Hello from greet"]),
    shown(greeted),
  );
  const runs = (await api("/api/agents/greeter/runs?limit=10")).body?.runs ?? [];
  check("one run, by the chosen behavior", runs.length === 1 && runs[0].trigger === "behavior:chat/greet", shown(runs));

  // --- the example dev-buddy script, verbatim -----------------------------------------------------
  const devBuddy = await readFile(join(root, "examples/dev-buddy.pnth"), "utf8");
  const devPut = await putScript("dev-buddy", devBuddy);
  check("examples/dev-buddy.pnth is set as it is written", devPut.status === 201, shown(devPut));
  const asked = await api("/api/agents/dev-buddy/messages", {
    method: "POST",
    body: JSON.stringify({ content: "check this diff", input: { repo: "acme/api" } }),
  });
  check(
    "dev-buddy answers through its model (the stand-in)",
    asked.status === 200 && asked.body?.reply?.content === "reply to: check this diff",
    shown(asked),
  );
  const buddyHistory = await history("dev-buddy");
  check(
    "dev-buddy stores 'check this diff' in the person's words, once, with one reply",
    shown(buddyHistory) === shown(["user: check this diff", "assistant: reply to: check this diff"]),
    shown(buddyHistory),
  );
  const [buddyCall] = requestsOf("gpt-4o-mini");
  check(
    "its model saw the person's words as the request and the on-message goal in its context",
    buddyCall?.messages.at(-1)?.content === "check this diff" &&
      systemOf(buddyCall).includes("Goal for this message (behavior review/on-message): check this diff"),
    shown(buddyCall),
  );
  const schedules = (await api("/api/agents/dev-buddy/schedules")).body?.schedules ?? [];
  const passive = schedules.find((s) => s.behavior === "review-open-diffs");
  check(
    "its passive hourly review took no message and is scheduled",
    passive?.lastRunAt === null && passive?.nextRunAt > Date.now(),
    shown(schedules),
  );

  // The case: a reviewer whose goal is built from the input ("Review diff for acme/api").
  const reviewerPut = await putScript(
    "reviewer-bot",
    `(actor "reviewer-bot" (role "code reviewer") (model :provider "openai" :name "review-model")
    (talent "review" (behavior "review-code" :active (goal (input) (concat "Review diff for " (get input "repo"))) (plan (input ctx) (think)))))`,
  );
  const reviewed = await api("/api/agents/reviewer-bot/messages", {
    method: "POST",
    body: JSON.stringify({ content: "check this diff", input: { repo: "acme/api" } }),
  });
  const reviewHistory = await history("reviewer-bot");
  check(
    "a goal built from the input ('Review diff for acme/api') is not stored as the person's words: 'check this diff' is",
    reviewerPut.status === 201 &&
      reviewed.status === 200 &&
      shown(reviewHistory) === shown(["user: check this diff", "assistant: reply to: check this diff"]),
    shown({ reviewerPut: reviewerPut.status, reviewHistory }),
  );
  const [reviewCall] = requestsOf("review-model");
  check(
    "the reviewer's model saw 'Review diff for acme/api' in its context",
    reviewCall &&
      systemOf(reviewCall).includes("Review diff for acme/api") &&
      !reviewCall.messages.some((m) => m.role === "user" && m.content.includes("Review diff for")),
    shown(reviewCall),
  );

  // --- goals through the CLI ----------------------------------------------------------------------
  const created = await cli([
    "agents",
    "create",
    "reviewer",
    "--role",
    "code reviewer",
    "--goal",
    "Review PR #123",
    "--model",
    "openai:tick-model",
  ]);
  check(
    "pantheon agents create --role --goal makes the agent with its goal",
    created.code === 0 && created.stdout.includes("1 goal") && created.stdout.includes("pantheon agents tick reviewer"),
    shown(created),
  );
  const show = await cli(["agents", "show", "reviewer"]);
  check(
    "pantheon agents show lists the role and goal",
    show.code === 0 && show.stdout.includes("code reviewer") && show.stdout.includes("- Review PR #123"),
    shown(show),
  );
  const tick = await cli(["agents", "tick", "reviewer"]);
  check(
    "pantheon agents tick runs once toward the goal and prints the reply",
    tick.code === 0 &&
      tick.stdout.includes("reply to: Take the next step toward your standing goals:") &&
      tick.stdout.includes("Review PR #123"),
    shown(tick),
  );
  const [tickCall] = requestsOf("tick-model");
  check(
    "the tick's model request carries the goals and the role",
    tickCall &&
      systemOf(tickCall).includes("Your role: code reviewer.") &&
      systemOf(tickCall).includes("- Review PR #123"),
    shown(tickCall),
  );
  const tickHistory = await history("reviewer");
  check(
    "a tick stores only the agent's reply: no one said the goal",
    tickHistory.length === 1 && tickHistory[0].startsWith("assistant: reply to: Take the next step"),
    shown(tickHistory),
  );
  const replaced = await cli([
    "agents",
    "goals",
    "reviewer",
    "--goal",
    "Review PR #124",
    "--goal",
    "Keep CI green",
    "--json",
  ]);
  check(
    "pantheon agents goals --goal … replaces the goals",
    replaced.code === 0 && shown(JSON.parse(replaced.stdout).goals) === shown(["Review PR #124", "Keep CI green"]),
    shown(replaced),
  );
  const cleared = await cli(["agents", "goals", "reviewer", "--clear"]);
  const noGoals = await cli(["agents", "tick", "reviewer"]);
  check(
    "with its goals cleared, a tick is refused naming the goals (exit 1)",
    cleared.code === 0 && noGoals.code === 1 && /no standing goals/.test(noGoals.stderr),
    shown({ cleared, noGoals }),
  );
  const empty = await cli(["agents", "create", "blank", "--goal", " "]);
  check("an empty --goal is a usage error (exit 2)", empty.code === 2 && empty.stderr.includes("--goal"), shown(empty));

  // --- a supervised child that fails twice is restarted within its limit --------------------------
  const boss = await putScript(
    "sup-boss",
    `(actor "sup-boss" (description "Delegates.") (model :provider "openai" :name "sup-boss") (spawn :allowed true :quota 1))`,
  );
  const started = await api("/api/agents/sup-boss/messages", {
    method: "POST",
    body: JSON.stringify({ content: "Get the answer from a worker." }),
  });
  let run;
  for (let i = 0; i < 120 && !["completed", "failed"].includes(run?.run?.status); i++) {
    await new Promise((r) => setTimeout(r, 500));
    run = (await api(`/api/agents/sup-boss/runs/${started.body?.runId}`)).body;
  }
  const steps = (run?.trace ?? []).filter((t) => t.name.startsWith("child_")).map((t) => t.name);
  check(
    "the boss's run completes with the child's answer after two restarts",
    boss.status === 201 &&
      run?.run?.status === "completed" &&
      (run.trace.find((t) => t.name === "run_finished")?.data.reply ?? "").includes(
        "boss got: reply to: Find the answer.",
      ),
    shown({ boss: boss.status, status: run?.run, steps }),
  );
  check(
    "each restart and the archive are traced on the boss's run",
    shown(steps) ===
      shown([
        "child_supervised",
        "child_restart_scheduled",
        "child_restarted",
        "child_restart_scheduled",
        "child_restarted",
        "child_done",
        "child_archived",
      ]),
    shown(steps),
  );
  const worker = (await api("/api/agents/sup-worker")).body;
  const workerRuns = (await api("/api/agents/sup-worker/runs?limit=10")).body?.runs ?? [];
  check(
    "the archived child left the graph and its three runs stay readable",
    worker?.archivedAt > 0 &&
      worker.connections.length === 0 &&
      shown(workerRuns.map((r) => r.status)) === shown(["completed", "failed", "failed"]),
    shown({ worker, runs: workerRuns.map((r) => r.status) }),
  );
} catch (error) {
  check("the check ran to the end", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  model.close();
  await rm(persistTo, { recursive: true, force: true });
}
finish();
