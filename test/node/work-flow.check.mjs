// A feature's whole flow on one real local stack (wrangler dev), driven as a person drives it: the
// real `pantheon` CLI, and an OpenAI-compatible model written here (node:http on loopback, outside
// workerd) that plays the planner and the workers by reading what they are sent. The planner asks
// one question first (clarify), is answered through the CLI, writes the plan; a person reviews and
// approves it; the tasks run all, one after another, unattended; a worker asks a question and the run
// stops for the person; `runs approve` is refused for it (naming `tasks answer`); the planner re-plans
// dropping a task so the blocked one is renumbered; the person answers through the CLI and the worker
// finishes; run-all again ends the feature; the reports read through the CLI.
// Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeChecks, makeCli, makeProjectCall, until } from "./check-kit.mjs";

const adminToken = `pa_${randomBytes(12).toString("hex")}`;
const persistTo = await mkdtemp(join(tmpdir(), "pantheon-work-flow-"));
const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 900);
const feature = "notes-app";

const planV1 = `# Notes app

## Storage
Notes live in a database.

## API
A route to read notes.

## Docs
How to run it.

## Tasks
1. Intro — write intro.md about storage
2. Core — the API route, depends on 1
3. Docs — docs.md for the docs
`;
const planV2 = planV1.replace(
  "1. Intro — write intro.md about storage\n2. Core — the API route, depends on 1\n3. Docs",
  "1. Core — the API route, backed by the storage\n2. Docs",
);

// ---- the model: planner and workers, decided from what each is sent ---------------------------------
const encode = (name) => name.replace(/\./g, "__");
const lastUser = (messages) => [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
const afterUser = (messages) => messages.slice(messages.map((m) => m.role).lastIndexOf("user") + 1);
const toolResults = (messages) => messages.filter((m) => m.role === "tool").map((m) => String(m.content));

/** What the planner does with a person's message: ask, write the plan, re-plan, sync. */
function planner(messages) {
  if (afterUser(messages).length > 0) return { content: "Done." };
  const said = String(lastUser(messages));
  if (said.includes("Plan the feature"))
    return { call: ["plan.ask", { feature, question: "Which database should notes live in?" }] };
  if (said.includes("answered your question")) return { call: ["plan.write", { feature, markdown: planV1 }] };
  if (said.includes("Drop the intro")) return { call: ["plan.write", { feature, markdown: planV2 }] };
  if (said.includes("Sync")) return { call: ["tasks.sync", { feature }] };
  return { content: "I plan features." };
}

/** What a worker does at each step of its task (its spec names the task). */
function worker(messages) {
  const spec = String(
    messages.find((m) => m.role === "user" && String(m.content).startsWith("# Task"))?.content ?? lastUser(messages),
  );
  const name = /^# Task \d+: (\w+)/.exec(spec)?.[1] ?? "?";
  const step = afterUser(messages).filter((m) => m.role === "assistant").length;
  const answers = toolResults(afterUser(messages)).filter((r) => r.includes("answered:"));
  const plan = {
    Intro: [
      ["fs.write", { path: "intro.md", content: "# Intro\n" }],
      ["task.commit", { summary: "Wrote intro.md" }],
    ],
    Core: [
      ["task.block", { question: "Which Postgres version?" }],
      ["fs.write", { path: "core.md", content: `# Core\n\n${answers[0] ?? "no answer"}\n` }],
      ["task.commit", { summary: "The API route" }],
    ],
    Docs: [
      ["fs.write", { path: "docs.md", content: "# Docs\n" }],
      ["task.commit", { summary: "Wrote docs.md" }],
    ],
  }[name];
  const next = plan?.[step];
  return next ? { call: next } : { content: `Task ${name} is done.` };
}

const seen = [];
const model = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const parsed = body ? JSON.parse(body) : {};
  const messages = parsed.messages ?? [];
  const system = String(messages[0]?.content ?? "");
  let answer;
  if (system.includes("long-term memory")) answer = { content: '{"memories":[]}' };
  else if (system.includes("running summary")) answer = { content: "(summary)" };
  else answer = parsed.model === "planner-model" ? planner(messages) : worker(messages);
  seen.push({ model: parsed.model, answer });
  const message = answer.call
    ? {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: `call_${seen.length}`,
            type: "function",
            function: { name: encode(answer.call[0]), arguments: JSON.stringify(answer.call[1]) },
          },
        ],
      }
    : { role: "assistant", content: answer.content };
  const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
  res.writeHead(200, { "content-type": parsed.stream ? "text/event-stream" : "application/json" });
  if (!parsed.stream)
    return res.end(
      JSON.stringify({
        id: "c",
        object: "chat.completion",
        created: 0,
        model: parsed.model,
        choices: [{ index: 0, message, finish_reason: answer.call ? "tool_calls" : "stop" }],
        usage,
      }),
    );
  const chunk = (delta, finish_reason = null, extra = {}) =>
    res.write(
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: parsed.model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`,
    );
  chunk(
    answer.call
      ? { role: "assistant", tool_calls: [{ index: 0, ...message.tool_calls[0] }] }
      : { role: "assistant", content: answer.content },
  );
  chunk({}, answer.call ? "tool_calls" : "stop");
  res.write(
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: parsed.model, choices: [], usage })}\n\n`,
  );
  res.end("data: [DONE]\n\n");
});
await new Promise((resolve) => model.listen(0, "127.0.0.1", resolve));
const modelUrl = `http://127.0.0.1:${model.address().port}`;

/** `pantheon <args>` as a person runs it (the real CLI in a child process); the admin's token unless another is given. */
const cli = makeCli({
  url: () => server.url,
  token: adminToken,
  project: "",
  cwd: persistTo,
  configHome: join(persistTo, "config"),
});

let server;
try {
  server = await startDevServer({
    port: await freePort(),
    token: adminToken,
    persistTo,
    vars: {
      PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true",
      OPENAI_API_KEY: "sk-work-flow",
      OPENAI_BASE_URL: `${modelUrl}/v1`,
    },
  });
  const call = makeProjectCall(server.url);
  const api = (path, init) => call(adminToken, "default", path, init);
  const approver = (
    await api("/api/tokens", { method: "POST", body: JSON.stringify({ name: "reviewer", scope: "approve" }) })
  ).body.token;
  const summary = async () => (await api(`/api/features/${feature}`)).body;
  const board = async () => (await api(`/api/features/${feature}/tasks`)).body?.tasks ?? [];

  // --- the planner, the feature, and a question before the plan (clarify) ------------------------
  await api("/api/agents", {
    method: "POST",
    body: JSON.stringify({
      name: "planner",
      model: { provider: "openai", name: "planner-model" },
      runtime: { tools: ["plan.ask", "plan.write", "plan.read", "tasks.sync", "status"] },
    }),
  });
  const created = await api("/api/features", {
    method: "POST",
    body: JSON.stringify({
      name: feature,
      title: "Notes app",
      orchestrator: "planner",
      maxQuestions: 1,
      worker: { model: { provider: "openai", name: "worker-model" } },
    }),
  });
  check(
    "an admin created the feature with the planner as its orchestrator",
    created.status === 201,
    shown(created.body),
  );
  await api("/api/agents/planner/messages", {
    method: "POST",
    body: JSON.stringify({ content: "Plan the feature: a notes app" }),
  });
  const inbox = await cli(["approvals"], { token: approver });
  const question = /pantheon plan answer notes-app (q-[a-z0-9-]+)/.exec(inbox.stdout)?.[1];
  check(
    "pantheon approvals lists the planner's question with the command that answers it",
    inbox.code === 0 && inbox.stdout.includes("Which database should notes live in?") && !!question,
    shown(inbox),
  );
  // The operator answers (the answer's turn acts with no more rights than the answerer's: plan.write is an admin's).
  const answeredQ = await cli(["plan", "answer", feature, question ?? "q-none", "Postgres"]);
  check(
    "pantheon plan answer: answered, and the planner goes on",
    answeredQ.code === 0 && answeredQ.stdout.includes("planner goes on planning"),
    shown(answeredQ),
  );
  const plan = await until("the plan", () => api(`/api/features/${feature}/plan`), { ok: (r) => r.status === 200 });
  check(
    "the planner wrote plan v1 after the answer: three tasks, the second after the first",
    plan.body.version === 1 &&
      plan.body.tasks.map((t) => t.name).join() === "Intro,Core,Docs" &&
      plan.body.tasks[1].dependsOn.join() === "intro",
    shown(plan.body.tasks),
  );

  // --- review and approval through the CLI --------------------------------------------------------
  const shownPlan = await cli(["plan", "show", feature]);
  check(
    "pantheon plan show prints the plan with line numbers and its analysis",
    shownPlan.code === 0 &&
      /^\s+1 {2}# Notes app$/m.test(shownPlan.stdout) &&
      shownPlan.stdout.includes("Analysis: every task traced"),
    shown(shownPlan),
  );
  const chatToken = (
    await api("/api/tokens", { method: "POST", body: JSON.stringify({ name: "phone", scope: "chat" }) })
  ).body.token;
  const refusedApprove = await cli(["plan", "approve", feature], { token: chatToken });
  check(
    "pantheon plan approve with a chat token: refused, exit 1",
    refusedApprove.code === 1 && /approve/.test(refusedApprove.stderr),
    shown(refusedApprove),
  );
  const approved = await cli(["plan", "approve", feature, "--version", "1"], { token: approver });
  check(
    "pantheon plan approve with an approve token: approved (exit 0)",
    approved.code === 0 && approved.stdout.includes("Approved version 1"),
    shown(approved),
  );
  await api("/api/agents/planner/messages", { method: "POST", body: JSON.stringify({ content: "Sync the tasks" }) });
  const listed = await cli(["tasks", "list", feature, "--json"]);
  const tasksJson = listed.code === 0 ? JSON.parse(listed.stdout).tasks : [];
  check(
    "pantheon tasks list --json: three pending tasks with keys and dependencies",
    tasksJson.map((t) => `${t.number}:${t.key}:${t.status}:${t.dependsOn.join("+")}`).join() ===
      "1:intro:pending:,2:core:pending:1,3:docs:pending:",
    shown(listed),
  );

  // --- run-all, unattended, until the worker's question --------------------------------------------
  const runAll = await cli(["tasks", "run-all", feature]);
  check(
    "pantheon tasks run-all starts the first task",
    runAll.code === 0 && runAll.stdout.includes("task 1 (intro) first"),
    shown(runAll),
  );
  const stopped = await until("run-all to stop on the question", summary, { ok: (s) => s?.stopped });
  const afterStop = await board();
  check(
    "the intro ran and was committed, then the core task asked, and run-all stopped for the person",
    afterStop.map((t) => t.status).join() === "done,blocked,pending" &&
      stopped.stopped.reason.includes("task 2 (core) is blocked") &&
      stopped.needsPerson >= 1,
    shown({ afterStop, stopped: stopped.stopped }),
  );
  const asks = await cli(["approvals"], { token: approver });
  check(
    "pantheon approvals suggests tasks answer for the worker's question",
    asks.stdout.includes(`pantheon tasks answer ${feature} core "<answer>"`) &&
      asks.stdout.includes("Which Postgres version?"),
    shown(asks),
  );
  const core = afterStop[1];
  const coreDetail = (await api(`/api/features/${feature}/tasks/core`)).body;
  const approveRun = await cli(["runs", "approve", core.worker, coreDetail.runIds.at(-1)], { token: approver });
  check(
    "pantheon runs approve on the question is refused (exit 1), naming tasks answer",
    approveRun.code === 1 && approveRun.stderr.includes(`pantheon tasks answer ${feature} core`),
    shown(approveRun),
  );

  // --- a re-plan while blocked renumbers the task --------------------------------------------------
  await api("/api/agents/planner/messages", {
    method: "POST",
    body: JSON.stringify({ content: "Drop the intro task from the plan" }),
  });
  const diff = await cli(["plan", "diff", feature]);
  check(
    "pantheon plan diff shows the dropped task",
    diff.code === 0 && diff.stdout.includes("-1. Intro") && diff.stdout.includes("+1. Core"),
    shown(diff),
  );
  await cli(["plan", "approve", feature], { token: approver });
  await api("/api/agents/planner/messages", { method: "POST", body: JSON.stringify({ content: "Sync the tasks" }) });
  const renumbered = await board();
  check(
    "after the re-sync the blocked core task is task 1, with the same worker",
    renumbered.map((t) => `${t.number}:${t.key}:${t.status}`).join() === "1:core:blocked,2:docs:pending" &&
      renumbered[0].worker === core.worker,
    shown(renumbered),
  );
  const usage = await cli(["tasks", "answer", feature]);
  check("pantheon tasks answer without a task is a usage error (exit 2)", usage.code === 2, shown(usage));
  const answered = await cli(["tasks", "answer", feature, "core", "Postgres", "16"], { token: approver });
  check(
    "pantheon tasks answer: the worker goes on",
    answered.code === 0 && answered.stdout.includes("Answered task 1 (core): its worker goes on."),
    shown(answered),
  );
  await until("the core task done", board, { ok: (t) => t[0]?.status === "done" });
  const coreFile = (await api(`/api/features/${feature}/files/content?path=core.md`)).body;
  check(
    "the worker, bound to its task's key, wrote and committed with the answer after the renumbering",
    coreFile?.content?.includes("answered: Postgres 16"),
    shown(coreFile),
  );

  // --- run-all again to the end; the reports ---------------------------------------------------------
  await cli(["tasks", "run-all", feature]);
  const done = await until("the feature done", summary, { ok: (s) => s?.status === "done" });
  check(
    "run-all again ran the docs task and the feature is done with its completion time",
    done.completedAt >= done.createdAt && done.needsPerson === 0,
    shown(done),
  );
  const features = await cli(["features"]);
  check(
    "pantheon features lists it as done",
    features.code === 0 && new RegExp(`${feature}\\s+done`).test(features.stdout),
    shown(features),
  );
  const report = await cli(["tasks", "report", feature]);
  check(
    "pantheon tasks report prints report.md: status, completion, the question and its answer, files, the planner's runs",
    report.code === 0 &&
      report.stdout.startsWith("# Report: Notes app") &&
      report.stdout.includes("- Status: **done**") &&
      report.stdout.includes("> Which Postgres version?") &&
      report.stdout.includes("Postgres 16") &&
      report.stdout.includes("- core.md") &&
      report.stdout.includes("## Planning"),
    shown(report.stdout.slice(0, 1500)),
  );
  check(
    "the dropped intro task's file still counts in the report",
    report.stdout.includes("- intro.md") && report.stdout.includes("Removed from the plan"),
    shown(report.stdout.slice(-800)),
  );
  const taskReport = await cli(["tasks", "report", feature, "core"]);
  check(
    "pantheon tasks report <feature> <task> prints the task's report.md",
    taskReport.code === 0 && taskReport.stdout.startsWith("# Task 1: Core"),
    shown(taskReport.stdout.slice(0, 400)),
  );
  const workerCalls = seen.filter((s) => s.model === "worker-model" && s.answer.call?.[0] === "task.commit").length;
  check(
    "each task committed once (three commits in all)",
    workerCalls === 3,
    shown(seen.filter((s) => s.model === "worker-model").map((s) => s.answer.call?.[0] ?? "reply")),
  );
} catch (error) {
  check("the check ran to its end", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  await new Promise((resolve) => model.close(resolve));
  await rm(persistTo, { recursive: true, force: true });
}
finish();
