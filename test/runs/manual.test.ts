import { describe, expect, it } from "vitest";
import { api, type ErrorBody } from "../api/client";
import { httpTool, scriptedAgent, toolCalls } from "./scripted";

/** Calls a tool by hand, as the PWA's tool runner and the CLI do. */
function invoke(agent: string, tool: string, args: Record<string, unknown>) {
  return api(`/api/agents/${agent}/tools/${tool}/invoke`, { method: "POST", json: { arguments: args } }).then(
    async (r) => ({ status: r.status, body: (await r.json()) as any }),
  );
}

describe("a tool called by hand is a run of its own, through every gate", () => {
  it("runs as a traced run (trigger manual, who called it), makes no model call and adds nothing to the chat", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({ httpTools: [httpTool("notes.add", key)] });
    const { status, body } = await invoke(agent.name, "notes.add", { text: "milk" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: "completed", ok: true, truncated: false });
    expect(JSON.parse(body.output)).toMatchObject({ echo: { text: "milk" } });
    expect(await toolCalls(key)).toHaveLength(1);
    expect(await agent.modelCalls()).toHaveLength(0);

    const runs = ((await (await api(`/api/agents/${agent.name}/runs`)).json()) as any).runs;
    expect(runs[0]).toMatchObject({ id: body.runId, trigger: "manual", status: "completed" });
    const { trace } = await agent.run(body.runId);
    expect(trace.map((s: any) => s.name)).toEqual([
      "run_started",
      "gate_decisions",
      "tool_call",
      "tool_result",
      "run_finished",
    ]);
    expect(trace[0].data).toMatchObject({ trigger: "manual", by: "admin", tool: "notes.add" });
    expect(trace[1].data.decisions.map((d: any) => d.gate)).toEqual([
      "budget",
      "allowlist",
      "schema",
      "scope",
      "rate-limit",
      "approval",
    ]);
    const history = ((await (await api(`/api/agents/${agent.name}/messages`)).json()) as any).messages;
    expect(history).toEqual([]);
  });

  it("a rate limit holds for calls by hand as for the model's (the bucket is shared and persisted)", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({
      httpTools: [httpTool("notes.add", key)],
      rateLimits: { "notes.add": { capacity: 1, refillPerSec: 0 } },
    });
    expect((await invoke(agent.name, "notes.add", { text: "one" })).status).toBe(200);
    const second = await invoke(agent.name, "notes.add", { text: "two" });
    expect(second.status).toBe(422);
    const error = (second.body as ErrorBody).error as ErrorBody["error"] & { details: { gate: string; runId: string } };
    expect(error.code).toBe("gate_rejected");
    expect(error.details.gate).toBe("rate-limit");
    expect(error.message).toMatch(/^gate 'rate-limit' refused the call: rate limit: 'notes.add' allows 1 calls/);
    expect(await toolCalls(key)).toHaveLength(1);
    const refusedRun = await agent.run(error.details.runId);
    expect(refusedRun.run).toMatchObject({ trigger: "manual", status: "failed" });
  });

  it("a custom deny-pattern gate and the schema refuse calls by hand; the tool never runs", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({
      httpTools: [httpTool("notes.add", key)],
      gates: [{ name: "no-secrets", kind: "deny-pattern", tool: "notes.*", field: "text", pattern: "password" }],
    });
    const denied = await invoke(agent.name, "notes.add", { text: "my PASSWORD is hunter2" });
    expect(denied.status).toBe(422);
    expect(denied.body.error.details.gate).toBe("no-secrets");
    const invalid = await invoke(agent.name, "notes.add", { text: 42 });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details.gate).toBe("schema");
    expect(await toolCalls(key)).toHaveLength(0);
  });

  it("an approval-gated tool answers 202 with the pending approval, runs once when approved, never when rejected", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({ httpTools: [httpTool("mail.send", key, { requiresApproval: true })] });
    const first = await invoke(agent.name, "mail.send", { text: "hello" });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      status: "waiting_approval",
      pending: { tool: "mail.send", arguments: { text: "hello" } },
    });
    expect(await toolCalls(key)).toHaveLength(0);
    const inbox = ((await (await api("/api/approvals")).json()) as any).approvals;
    expect(inbox.some((a: any) => a.runId === first.body.runId && a.tool === "mail.send")).toBe(true);

    const approved = await api(`/api/agents/${agent.name}/runs/${first.body.runId}/approval`, {
      method: "POST",
      json: { decision: "approve" },
    });
    expect(((await approved.json()) as any).status).toBe("completed");
    expect(await toolCalls(key)).toHaveLength(1);
    const { run, trace } = await agent.run(first.body.runId);
    expect(run.status).toBe("completed");
    expect(trace.find((s: any) => s.name === "approval").data).toMatchObject({ approved: true, by: "admin" });

    const second = await invoke(agent.name, "mail.send", { text: "again" });
    const rejected = await api(`/api/agents/${agent.name}/runs/${second.body.runId}/approval`, {
      method: "POST",
      json: { decision: "reject", reason: "not now" },
    });
    expect(((await rejected.json()) as any).status).toBe("failed");
    expect(await toolCalls(key)).toHaveLength(1);
  });

  it("a tool's own error answers 200 with ok: false and the run failed; an undeclared tool is 404", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({ httpTools: [httpTool("notes.add", key, { query: "status=500" })] });
    const failed = await invoke(agent.name, "notes.add", { text: "x" });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ ok: false, status: "failed" });
    expect(failed.body.error.message).toContain("500");
    expect((await invoke(agent.name, "nope.tool", {})).status).toBe(404);
  });
});

describe("an ask_<agent> tool called by hand", () => {
  it("answers 202 while the other agent works; the run completes with its answer", async () => {
    const { project } = await import("../bus/harness");
    const p = project();
    await p.agent("helper", { systemPrompt: "You are helper. The code word is tangerine." });
    await p.agent("boss");
    await p.connect("boss", ["helper"]);
    const res = await p.api(`/api/agents/boss/tools/ask_helper/invoke`, {
      method: "POST",
      json: { arguments: { question: "What is the code word?" } },
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ status: "waiting_agent", waiting: { tool: "ask_helper" } });
    const run = await p.settled("boss", body.runId);
    expect(run.run.status).toBe("completed");
    expect(run.trace.find((t) => t.name === "run_started")!.data).toMatchObject({
      trigger: "manual",
      tool: "ask_helper",
    });
    expect(p.replyOf(run).toLowerCase()).toContain("tangerine");
  });
});
