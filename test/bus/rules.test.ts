import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { project } from "./harness";

const busMessage = (p: { name: string }, over: Record<string, unknown>) => ({
  id: crypto.randomUUID(),
  conversationId: `conv-${crypto.randomUUID()}`,
  from: "main",
  to: "github",
  project: p.name,
  type: "request",
  payload: { question: "what is the default branch?" },
  depth: 1,
  replyTo: { runId: "run-x", callId: "call-x" },
  deadlineAt: Date.now() + 60_000,
  createdAt: Date.now(),
  ...over,
});

describe("bus rules", () => {
  it("connections can only name existing agents, and the error names the missing one", async () => {
    const p = project();
    await p.agent("airtable");
    await p.agent("main");
    const res = await p.api("/api/agents/main/connections", {
      method: "PUT",
      json: { connections: ["airtable", "nobody"] },
    });
    expect(res.status).toBe(400);
    const body = await res.json<any>();
    expect(body.error.message).toContain("'nobody'");
    expect(body.error.details.issues).toEqual([{ path: ["connections", 1], message: "agent 'nobody' does not exist" }]);
    expect(await p.json("/api/agents/main/connections")).toEqual({ connections: [] });
    expect(await p.connect("main", ["airtable"])).toEqual({ name: "main", connections: ["airtable"] });
  });

  it("an ask along a connection removed while the run waited is refused by the gates, and the refusal is in the trace", async () => {
    const p = project();
    await p.agent("airtable");
    await p.agent("main", { runtime: { approvalRequired: ["ask_airtable"] } });
    await p.connect("main", ["airtable"]);
    const started = await p.chat("main", "/ask airtable how many leads?");
    expect(started.status).toBe("waiting_approval");

    await p.connect("main", []);
    await p.json(`/api/agents/main/runs/${started.runId}/approval`, { method: "POST", json: { decision: "approve" } });
    const run = await p.settled("main", started.runId);

    // The run rebuilds its context after the change (a setting reaches a waiting run), so the approved
    // call meets the gates again with the agent as it is now: refused before anything is sent.
    const refusal = run.trace.find((t) => t.name === "gate_decisions" && (t.data as any).refused);
    expect((refusal?.data as any).refused).toMatchObject({ tool: "ask_airtable", gate: "allowlist" });
    expect(p.replyOf(run)).toContain("tool 'ask_airtable' is not available to this agent");
    expect((await p.json("/api/agents/airtable/runs")).runs).toEqual([]);
  });

  it("the registry refuses a request between agents that are not connected", async () => {
    const p = project();
    await p.agent("github");
    await p.agent("main");
    const message = busMessage(p, {});
    await env.BUS.send(message);
    const chain = await p.until(async () => {
      const res = await p.api(`/api/conversations/${message.conversationId}`);
      const body = res.ok ? await res.json<any>() : null;
      // The refusal and its error reply are two entries of the log: wait for both.
      return body?.hops[0]?.state === "refused" && body.hops[0].reply ? body : null;
    }, "the refusal and its reply");
    expect(chain.hops[0].note).toBe("agent 'main' is not connected to 'github' (connections: none)");
    expect(chain.hops[0].reply).toMatchObject({ type: "error", code: "not_connected" });
    expect((await p.json("/api/agents/github/runs")).runs).toEqual([]);
  });

  it("the asked agent is told who may ask it, admits them, and refuses an asker whose connection was dropped", async () => {
    const p = project();
    await p.agent("github");
    await p.agent("main");
    await p.connect("main", ["github"]);
    expect((await p.json("/api/agents/github")).askedBy).toEqual(["main"]);
    const first = busMessage(p, {});
    await env.BUS.send(first);
    const runs = await p.until(async () => {
      const listed = (await p.json("/api/agents/github/runs")).runs;
      return listed.length === 1 && listed[0].status === "completed" ? listed : null;
    }, "github's run for the admitted request");
    expect(runs[0].trigger).toBe("agent:main");

    await p.connect("main", []);
    expect((await p.json("/api/agents/github")).askedBy).toEqual([]);
    const second = busMessage(p, {});
    await env.BUS.send(second);
    const chain = await p.until(async () => {
      const res = await p.api(`/api/conversations/${second.conversationId}`);
      const body = res.ok ? await res.json<any>() : null;
      return body?.hops[0]?.state === "refused" && body.hops[0].reply ? body : null;
    }, "the refusal");
    expect(chain.hops[0].reply).toMatchObject({ type: "error", code: "not_connected" });
    expect((await p.json("/api/agents/github/runs")).runs).toHaveLength(1);
  });

  it("a question to an agent that does not exist is answered with an error, not lost", async () => {
    const p = project();
    await p.agent("main");
    const message = busMessage(p, { to: "ghost" });
    await env.BUS.send(message);
    const chain = await p.until(async () => {
      const res = await p.api(`/api/conversations/${message.conversationId}`);
      const body = res.ok ? await res.json<any>() : null;
      return body?.hops[0]?.reply ? body : null;
    }, "the error reply");
    expect(chain.hops[0]).toMatchObject({
      to: "ghost",
      state: "refused",
      note: `agent 'ghost' does not exist in project '${p.name}'`,
    });
    expect(chain.hops[0].reply).toMatchObject({ type: "error", code: "not_found" });
  });

  it("a cycle of delegations stops at depth 10 and the error travels back to the first asker", async () => {
    const p = project();
    await p.agent("ping");
    await p.agent("pong");
    await p.connect("ping", ["pong"]);
    await p.connect("pong", ["ping"]);
    const hops = Array.from({ length: 11 }, (_, i) => `/ask ${i % 2 === 0 ? "pong" : "ping"}`).join(" ");
    const started = await p.chat("ping", `${hops} are we there yet?`);
    const run = await p.settled("ping", started.runId);

    expect(run.run.status).toBe("completed");
    expect(p.replyOf(run)).toContain(
      "delegation depth limit reached: this request would be hop 11, at most 10 allowed",
    );
    const chain = await p.chain(started.runId, 11);
    expect(chain.hops.map((h: any) => h.depth)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(chain.hops.slice(0, 10).every((h: any) => h.state === "answered")).toBe(true);
    expect(chain.hops[10]).toMatchObject({ state: "refused", runId: null });
  });
});
