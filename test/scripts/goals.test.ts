// Standing goals: set on create, by PATCH or by a script; in every run's context, never in the history;
// `POST …/tick` runs once toward them.
import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName } from "../api/client";
import { scriptedAgent } from "../runs/scripted";
import { getJson, putScript } from "./helpers";

const history = async (name: string) => {
  const body = await getJson(`/api/agents/${name}/messages?limit=100`);
  if (!body.messages) throw new Error(JSON.stringify(body));
  return body.messages.map((m: any) => `${m.role}: ${m.content}`).reverse();
};
const systemTexts = (call: any) =>
  call.messages
    .filter((m: any) => m.role === "system")
    .map((m: any) => m.content)
    .join("\n");

describe("standing goals", () => {
  it("are set on create with a role, read back, replaced by PATCH, and refused when empty, naming the field", async () => {
    const agent = await createAgent({ role: "code reviewer", goals: ["Review PR #123"] });
    expect(agent).toMatchObject({ role: "code reviewer", goals: ["Review PR #123"] });
    expect(await getJson(`/api/agents/${agent.name}`)).toMatchObject({ goals: ["Review PR #123"] });
    const patched = await api(`/api/agents/${agent.name}`, {
      method: "PATCH",
      json: { goals: ["Review PR #124", "Keep CI green"] },
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as any).goals).toEqual(["Review PR #124", "Keep CI green"]);
    const bad = await api(`/api/agents/${agent.name}`, { method: "PATCH", json: { goals: ["  "] } });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as any;
    expect(body.error.details.issues[0].path).toEqual(["goals", 0]);
    expect((await getJson(`/api/agents/${agent.name}`)).goals).toEqual(["Review PR #124", "Keep CI green"]);
  });

  it("are in each run's context (with the role) and never in the history", async () => {
    const agent = await scriptedAgent({}, { role: "code reviewer", goals: ["Review PR #123"] });
    await agent.script([{ content: "On it." }]);
    const sent = await agent.send("hello");
    expect(sent.body.reply?.content, JSON.stringify(sent.body)).toBe("On it.");
    const [call] = await agent.modelCalls();
    expect(systemTexts(call)).toContain("Your role: code reviewer.");
    expect(systemTexts(call)).toContain("- Review PR #123");
    expect(await history(agent.name)).toEqual(["user: hello", "assistant: On it."]);
  });

  it("a script's (goals …) and (role …) set them", async () => {
    const name = uniqueName("goaled");
    const put = await putScript(
      name,
      `(actor "${name}" (role "triager") (description "Triage") (goals "Label new issues" "Close stale ones"))`,
    );
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    expect(await getJson(`/api/agents/${name}`)).toMatchObject({
      role: "triager",
      goals: ["Label new issues", "Close stale ones"],
    });
    const { source } = await getJson(`/api/agents/${name}/script`);
    expect(source).toContain('(goals "Label new issues" "Close stale ones")');
  });
});

describe("tick", () => {
  it("runs once toward the goals: the goals are the request and in the trace, only the reply enters the history", async () => {
    const agent = await scriptedAgent({}, { goals: ["Review PR #123"] });
    await agent.script([{ content: "Reviewed PR #123: two risky changes." }]);
    const res = await api(`/api/agents/${agent.name}/tick`, { method: "POST", json: {} });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ status: "completed", reply: { content: "Reviewed PR #123: two risky changes." } });
    const [call] = await agent.modelCalls();
    expect(call.messages.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining("Review PR #123") });
    expect(await history(agent.name)).toEqual(["assistant: Reviewed PR #123: two risky changes."]);
    const run = await agent.run(body.runId);
    expect(run.trace.find((s: any) => s.name === "run_started").data).toMatchObject({
      trigger: "tick",
      goal: "Review PR #123",
    });
  });

  it("an agent without goals is refused with the field named; a chat token may not tick, the admin may", async () => {
    const none = await createAgent();
    const res = await api(`/api/agents/${none.name}/tick`, { method: "POST", json: {} });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details.issues[0].path).toEqual(["goals"]);
    const goaled = await createAgent({ goals: ["Say hello"] });
    const token = (await (
      await api("/api/tokens", { method: "POST", json: { name: uniqueName("chat"), scope: "chat" } })
    ).json()) as any;
    expect(
      (await api(`/api/agents/${goaled.name}/tick`, { method: "POST", json: {}, token: token.token })).status,
    ).toBe(403);
    expect((await api(`/api/agents/${goaled.name}/tick`, { method: "POST", json: {} })).status).toBe(200);
    expect((await api(`/api/agents/${uniqueName("ghost")}/tick`, { method: "POST", json: {} })).status).toBe(404);
  });
});
