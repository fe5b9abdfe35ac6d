import { env } from "cloudflare:test";
import { api, createAgent, uniqueName } from "../../api/client";
import type { RouteFixture } from "./types";

// What the samples act on: `makeRouteFixture()` makes it once; the helpers below make a fresh
// target for samples that consume theirs (deletes, approvals, cancels, task moves).

/** The smallest bytes the image sniffing takes as a GIF (2x2), written as text. */
export const gifText = "GIF89a\u0002\u0000\u0002\u0000\u0000\u0000\u0000;";

/** A DSL script for `name` with one cron behavior (`brief/morning`) that can be paused and resumed. */
export const scriptFor = (name: string) => `; the fuzz's scripted agent
(actor "${name}"
  (description "Prepares a brief.")
  (model :provider "offline" :name "offline")
  (tools "clock.now")
  (talent "brief"
    (behavior "morning" :persistent
      (cron "0 7 * * 1-5")
      (goal (input) "Prepare the morning brief")
      (plan (input ctx) (think)))))`;

export async function json<T>(res: Response, what: string): Promise<T> {
  if (!res.ok) throw new Error(`${what} failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function chat(agent: string, content: string): Promise<{ runId: string; status: string }> {
  return json(await api(`/api/agents/${agent}/messages`, { method: "POST", json: { content } }), `chat with ${agent}`);
}

/** A fresh agent with the gateway configured (samples that read or remove one). */
export async function withGateway(kind: "telegram" | "email"): Promise<string> {
  const name = (await createAgent({ name: uniqueName("gw") })).name;
  const json =
    kind === "telegram"
      ? { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [1] }
      : { allowedSenders: ["ann@example.com"] };
  const res = await api(`/api/agents/${name}/gateways/${kind}`, { method: "PUT", json });
  if (!res.ok) throw new Error(`configure ${kind} gateway failed: ${res.status} ${await res.text()}`);
  return name;
}

/** A run of the gated agent waiting for a person to approve its `clock.now` call. */
export async function waitingRun(f: RouteFixture): Promise<string> {
  const outcome = await chat(f.gated, "/tool clock.now {}");
  if (outcome.status !== "waiting_approval")
    throw new Error(`expected a run waiting for approval, got ${outcome.status}`);
  return outcome.runId;
}

const plannerTools = [
  "feature.create",
  "plan.write",
  "plan.read",
  "tasks.sync",
  "task.start",
  "task.discard",
  "status",
  "fs.list",
  "fs.read",
];
export const featurePlan = "# Plan\n\n## Tasks\n\n1. One — the first task\n2. Two — the second task\n";

/** A fresh feature of the fixture's planner: planned, approved and synced unless `upTo` stops earlier. */
export async function freshFeature(
  f: Pick<RouteFixture, "planner">,
  upTo: "created" | "planned" | "synced" = "synced",
): Promise<string> {
  const name = uniqueName("feat")
    .replace(/[^a-z0-9-]/g, "")
    .slice(0, 40);
  await json(
    await api("/api/features", {
      method: "POST",
      json: {
        name,
        title: "A sample feature",
        orchestrator: f.planner,
        files: { "context/brief.md": "Keep it small.\n" },
      },
    }),
    "create feature",
  );
  if (upTo === "created") return name;
  await json(await api(`/api/features/${name}/plan`, { method: "PUT", json: { markdown: featurePlan } }), "write plan");
  if (upTo === "planned") return name;
  await json(await api(`/api/features/${name}/plan/approve`, { method: "POST", json: {} }), "approve plan");
  await json(await api(`/api/features/${name}/tasks/sync`, { method: "POST" }), "sync tasks");
  return name;
}

/** A feature whose task 2 is blocked: both tasks changed one file, task 1 committed first. */
export async function blockedTask(f: Pick<RouteFixture, "planner">): Promise<string> {
  const name = await freshFeature(f);
  const stub = (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${name}`));
  const admin = { kind: "person", id: "admin", scope: "admin" };
  for (const task of [1, 2]) {
    await stub.beginTask(task, admin);
    await stub.writeFile(
      { task, path: "context/brief.md", content: `task ${task}\n` },
      { kind: "agent", name: `${name}-task-${task}` },
    );
  }
  await stub.commitTask({ task: 1, key: "one" }, admin);
  const blocked = await stub.commitTask({ task: 2, key: "two" }, admin);
  if (blocked.value?.status !== "blocked") throw new Error(`expected a blocked task, got ${JSON.stringify(blocked)}`);
  return name;
}

/** A feature whose planner asked a question before planning (clarify): the answer route's sample. */
export async function askedQuestion(f: Pick<RouteFixture, "planner">) {
  const name = await freshFeature(f, "created");
  const stub = (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${name}`));
  const asked = await stub.askQuestion(`Which scope for ${name}?`, { kind: "agent", name: f.planner });
  return { params: { feature: name, id: asked.value.id as string }, body: { json: { answer: "Small." } } };
}

/** A feature whose task 1 is in progress (begun, no worker run) with one changed file. */
export async function taskInProgress(f: Pick<RouteFixture, "planner">): Promise<string> {
  const name = await freshFeature(f);
  const stub = (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${name}`));
  await stub.beginTask(1, { kind: "person", id: "admin", scope: "admin" });
  await stub.writeFile({ task: 1, path: "notes.md", content: "a note\n" }, { kind: "agent", name: `${name}-task-1` });
  return name;
}

/** Creates the agents, session, run, memory and conversation the samples use. */
export async function makeRouteFixture(): Promise<RouteFixture> {
  const helper = (await createAgent({ name: uniqueName("helper"), description: "Answers the fuzz's questions." })).name;
  const agent = (await createAgent({ name: uniqueName("fuzz") })).name;
  const mcpUrl = (env as unknown as { MCP_TEST_URL: string }).MCP_TEST_URL;
  const mcpAgent = (
    await createAgent({
      name: uniqueName("mcp"),
      runtime: { tools: ["clock.now"], allowHosts: [new URL(mcpUrl).hostname] },
    })
  ).name;
  await json(
    await api(`/api/agents/${agent}/connections`, { method: "PUT", json: { connections: [helper] } }),
    "connect",
  );
  const gated = (
    await createAgent({ name: uniqueName("gated"), runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } })
  ).name;
  const scripted = uniqueName("scripted");
  const put = await api(`/api/agents/${scripted}/script`, {
    method: "PUT",
    headers: { "content-type": "text/x-pantheon" },
    body: scriptFor(scripted),
  });
  await json(put, "script");
  const session = (
    await json<{ id: string }>(
      await api(`/api/agents/${agent}/sessions`, { method: "POST", json: { title: "fuzz" } }),
      "session",
    )
  ).id;
  const run = (await chat(agent, "hello")).runId;
  const memory = (
    await json<{ id: string }>(
      await api(`/api/agents/${agent}/memories`, {
        method: "POST",
        json: { text: "The launch code word is pineapple." },
      }),
      "memory",
    )
  ).id;
  const conversation = (await chat(agent, `/ask ${helper} what do you know?`)).runId;
  const planner = (await createAgent({ name: uniqueName("planner"), runtime: { tools: plannerTools } })).name;
  const feature = await freshFeature({ planner });
  const image = (
    await json<{ id: string }>(
      await api(`/api/agents/${agent}/images`, {
        method: "POST",
        headers: { "content-type": "image/gif" },
        body: gifText,
      }),
      "image",
    )
  ).id;
  return {
    agent,
    helper,
    gated,
    scripted,
    session,
    run,
    memory,
    conversation,
    mcpUrl,
    mcpAgent,
    planner,
    feature,
    image,
  };
}
