// The rights a run acts with along a chain: a delegated run carries the lowest scope of its chain, a
// behavior its script's configurer (and no more than the person whose message set it off), and a
// run resumed after an eviction the principal it was started with.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { adminToken, api, createAgent } from "../api/client";
import { project } from "../bus/harness";
import { evict } from "../runs/eviction-kit";
import { eventually, scriptedAgent } from "../runs/scripted";
import { putScript, untilAlarmed } from "../scripts/helpers";

async function tokenIn(projectName: string, scope: "chat" | "admin"): Promise<string> {
  const res = await api("/api/tokens", {
    method: "POST",
    json: { name: `chain ${scope}`, scope },
    headers: { "x-pantheon-project": projectName },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

describe("a delegated run carries the lowest scope of its chain", () => {
  it("a chat-started ask makes the helper's memory.forget wait, the memory kept; an admin-started ask forgets (positive control)", async () => {
    const p = project();
    await p.agent("helper");
    await p.agent("boss");
    await p.connect("boss", ["helper"]);
    const memory = await p.json<{ id: string }>("/api/agents/helper/memories", {
      method: "POST",
      json: { text: "The vault opens at noon." },
    });
    const chat = await tokenIn(p.name, "chat");
    const message = `/ask helper /tool memory.forget {"id":"${memory.id}"}`;

    const asked = await p.json<{ runId: string; status: string }>("/api/agents/boss/messages", {
      method: "POST",
      json: { content: message },
      token: chat,
    });
    expect(asked.status).toBe("waiting_agent");
    const helperRun = await p.until(
      async () =>
        (await p.json<{ runs: any[] }>("/api/agents/helper/runs")).runs.find((r) => r.trigger === "agent:boss"),
      "the helper's run",
    );
    const waiting = await p.settled("helper", helperRun.id, (s) => s === "waiting_approval");
    expect(waiting.run).toMatchObject({
      status: "waiting_approval",
      principal: { id: "agent:boss", scope: "chat", name: "agent boss for token:chain chat" },
    });
    expect((await p.api(`/api/agents/helper/memories/${memory.id}`)).status).toBe(200);

    const byAdmin = await p.json<{ runId: string }>("/api/agents/boss/messages", {
      method: "POST",
      json: { content: message },
    });
    await p.settled("boss", byAdmin.runId);
    const runs = (await p.json<{ runs: any[] }>("/api/agents/helper/runs")).runs.filter(
      (r) => r.trigger === "agent:boss",
    );
    expect(runs.find((r) => r.id !== helperRun.id)).toMatchObject({
      status: "completed",
      principal: { scope: "admin" },
    });
    expect((await p.api(`/api/agents/helper/memories/${memory.id}`)).status).toBe(404);
  });
});

describe("a behavior acts for its script's configurer", () => {
  const remember = async (agent: string, text: string) =>
    ((await (await api(`/api/agents/${agent}/memories`, { method: "POST", json: { text } })).json()) as { id: string })
      .id;
  const behaviorRuns = async (agent: string) =>
    ((await (await api(`/api/agents/${agent}/runs?limit=50`)).json()) as { runs: any[] }).runs.filter((r) =>
      r.trigger.startsWith("behavior:"),
    );

  it("a message-triggered behavior acts for the lower of the sender and the configurer: chat waits, admin forgets", async () => {
    const { name } = await createAgent();
    const id = await remember(name, "The shed key hangs by the door.");
    const put = await putScript(
      name,
      `(actor "${name}" (description "Tidies") (tools "clock.now" "memory.forget")
      (talent "work" (behavior "tidy" :active (goal (input) "tidy up") (plan (input ctx) (tool "memory.forget" :args {:id "${id}"})))))`,
    );
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const chat = await tokenIn("default", "chat");

    const byChat = await api(`/api/agents/${name}/messages`, {
      method: "POST",
      json: { content: "tidy please" },
      token: chat,
    });
    expect(((await byChat.json()) as any).status).toBe("waiting_approval");
    expect((await behaviorRuns(name))[0]).toMatchObject({
      principal: { scope: "chat", name: "token:chain chat (with admin)" },
    });
    expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(200);

    const byAdmin = await api(`/api/agents/${name}/messages`, {
      method: "POST",
      json: { content: "tidy please" },
      token: adminToken,
    });
    expect(((await byAdmin.json()) as any).status).toBe("completed");
    expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(404);
  });

  it("a scheduled behavior set by an admin acts as that admin; one whose configurer is not recorded acts with the least scope", async () => {
    const { name } = await createAgent();
    const id = await remember(name, "The bikes are in the garage.");
    const script = `(actor "${name}" (description "Tidies") (tools "clock.now" "memory.forget")
      (talent "work" (behavior "tidy" :passive (every "1s") (goal (input) "tidy up") (plan (input ctx) (tool "memory.forget" :args {:id "${id}"})))))`;
    expect((await putScript(name, script)).status).toBe(200);
    const runs = await untilAlarmed(
      name,
      () => behaviorRuns(name),
      (r) => r.some((run) => run.status === "completed"),
      "the scheduled run",
    );
    expect(runs.find((r) => r.status === "completed")).toMatchObject({
      principal: { id: "admin", scope: "admin", name: "admin" },
    });
    expect((await api(`/api/agents/${name}/memories/${id}`)).status).toBe(404);

    // A script stored before configurers were recorded: the registry's column is empty.
    const { name: legacy } = await createAgent();
    const kept = await remember(legacy, "The canoe is blue.");
    expect((await putScript(legacy, script.replaceAll(name, legacy).replace(id, kept))).status).toBe(200);
    const registry = env.REGISTRY.get(env.REGISTRY.idFromName("default"));
    await runInDurableObject(
      registry,
      (_instance, state) =>
        void state.storage.sql.exec("UPDATE agents SET configured_by = NULL WHERE name = ?", legacy),
    );
    // Any change pushes the profile again: the agent now knows no configurer.
    expect(
      (await api(`/api/agents/${legacy}`, { method: "PATCH", json: { description: "Tidies, legacy" } })).status,
    ).toBe(200);
    const waiting = await untilAlarmed(
      legacy,
      () => behaviorRuns(legacy),
      (r) => r.some((run) => run.status === "waiting_approval"),
      "the scheduled run to wait",
    );
    expect(waiting.find((r) => r.status === "waiting_approval")).toMatchObject({
      principal: { id: "unknown", scope: "chat" },
    });
    expect((await api(`/api/agents/${legacy}/memories/${kept}`)).status).toBe(200);
  });
});

describe("a run resumed after an eviction keeps its principal", () => {
  async function evictedMidModelCall(token: string) {
    const agent = await scriptedAgent();
    const memory = (await (
      await api(`/api/agents/${agent.name}/memories`, { method: "POST", json: { text: "The attic light is broken." } })
    ).json()) as { id: string };
    // The call cut off by the eviction is made again after it: the same proposal comes back.
    const propose = { content: "", toolCalls: [{ name: "memory.forget", arguments: { id: memory.id } }] };
    await agent.script([{ ...propose, delayMs: 1500 }, propose, { content: "Forgotten." }]);
    const pending = api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "forget the attic" },
      token,
    }).catch(() => null);
    await eventually(
      () => agent.modelCalls(),
      (calls) => calls.length === 1,
      "the model call",
    );
    const runId = await eventually(
      async (): Promise<string> =>
        ((await (await api(`/api/agents/${agent.name}/runs`)).json()) as any).runs[0]?.id ?? "",
      Boolean,
      "the run",
    );
    await evict(agent.name);
    await pending;
    // Only the agent's own alarm wakes it: the run is carried on from its record.
    const stub = () => env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent.name}`));
    let status = "";
    for (let i = 0; i < 100 && !["waiting_approval", "completed", "failed"].includes(status); i++) {
      await runDurableObjectAlarm(stub());
      await new Promise((r) => setTimeout(r, 100));
      status = await runInDurableObject(
        stub(),
        (_instance, state) =>
          state.storage.sql.exec<{ status: string }>("SELECT status FROM runs WHERE id = ?", runId).one().status,
      );
    }
    const detail = await agent.run(runId);
    expect(detail.trace.some((s: any) => s.name === "resumed")).toBe(true);
    const kept = (await api(`/api/agents/${agent.name}/memories/${memory.id}`)).status === 200;
    return { status, principal: detail.run.principal, kept };
  }

  it("a chat-started run evicted mid-model-call still waits for an admin after the restart; an admin-started one forgets", async () => {
    const chat = await tokenIn("default", "chat");
    expect(await evictedMidModelCall(chat)).toMatchObject({
      status: "waiting_approval",
      principal: { scope: "chat" },
      kept: true,
    });
    expect(await evictedMidModelCall(adminToken)).toMatchObject({
      status: "completed",
      principal: { scope: "admin" },
      kept: false,
    });
  });
});

describe("a task's worker acts as the admin who started its task; a chat token talking to it does not", () => {
  it("the worker's run acts as admin and commits; a chat token's message to the worker asking for task.commit waits", async () => {
    const { approvedFeature } = await import("../work/helpers");
    const f = await approvedFeature("## Tasks\n1. One — write a file\n");
    const worker = `${f.feature}-task-1`;
    const commit = { toolCalls: [{ name: "task.commit", arguments: { summary: "did it" } }] };
    await f.scriptWorkers([commit, { content: "Committed." }, commit]);

    const started = (await (await api(`/api/features/${f.feature}/tasks/1/start`, { method: "POST" })).json()) as {
      runId: string;
    };
    const workerRun = await eventually(
      async () => ((await (await api(`/api/agents/${worker}/runs/${started.runId}`)).json()) as any).run,
      (run) => run?.status === "completed",
      "the worker's run",
    );
    expect(workerRun.principal).toMatchObject({ id: "task", scope: "admin" });
    const trace = ((await (await api(`/api/agents/${worker}/runs/${started.runId}`)).json()) as any).trace;
    expect(trace.some((s: any) => s.name === "tool_call" && s.data.tool === "task.commit")).toBe(true);

    const chat = await tokenIn("default", "chat");
    const asked = (await (
      await api(`/api/agents/${worker}/messages`, { method: "POST", json: { content: "commit it now" }, token: chat })
    ).json()) as { runId: string; status: string };
    expect(asked.status).toBe("waiting_approval");
    const waiting = (await (await api(`/api/agents/${worker}/runs/${asked.runId}`)).json()) as any;
    expect(waiting.run.pending).toEqual([expect.objectContaining({ tool: "task.commit", approverScope: "admin" })]);
    expect(waiting.trace.some((s: any) => s.name === "tool_call")).toBe(false);
  });
});

describe("a spawned child acts for whoever its parent's run acted for", () => {
  it("a chat-started spawn records the chat token as the child's configurer, and the child's run acts with chat; an admin spawn, admin", async () => {
    const { script } = await import("../bus/harness");
    const p = project();
    const model = `rights-spawn-${crypto.randomUUID()}`;
    await p.agent("boss");
    const put = await p.api("/api/agents/boss/script", {
      method: "PUT",
      headers: { "content-type": "text/x-pantheon" },
      body: `(actor "boss" (description "Delegates.") (model :provider "openai" :name "${model}") (spawn :allowed true :quota 2))`,
    });
    expect(put.status).toBe(200);
    const child = (name: string) => `(actor "${name}" (description "Answers."))`;
    await script(model, [
      { toolCalls: [{ name: "agent.spawn", arguments: { script: child("kid-chat"), goal: "Say hi." } }] },
      { content: "Done." },
      { toolCalls: [{ name: "agent.spawn", arguments: { script: child("kid-admin"), goal: "Say hi." } }] },
      { content: "Done." },
    ]);
    const chat = await tokenIn(p.name, "chat");

    const byChat = await p.json<{ runId: string }>("/api/agents/boss/messages", {
      method: "POST",
      json: { content: "spawn one" },
      token: chat,
    });
    await p.settled("boss", byChat.runId);
    expect((await p.json("/api/agents/kid-chat")).configuredBy).toMatchObject({
      scope: "chat",
      name: "token:chain chat",
    });
    const kidRun = (await p.json<{ runs: any[] }>("/api/agents/kid-chat/runs")).runs[0];
    expect(kidRun.principal).toMatchObject({ scope: "chat" });

    const byAdmin = await p.json<{ runId: string }>("/api/agents/boss/messages", {
      method: "POST",
      json: { content: "spawn another" },
    });
    await p.settled("boss", byAdmin.runId);
    expect((await p.json("/api/agents/kid-admin")).configuredBy).toMatchObject({ id: "admin", scope: "admin" });
  });
});
