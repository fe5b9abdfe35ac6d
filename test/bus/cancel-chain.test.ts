// Cancelling a run cancels the runs it delegated to, down the chain (a `cancel` bus message per
// question it still waits on), so nothing is left waiting for an approval nobody will give.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { cancelIdOf } from "../../core/bus";
import { project } from "./harness";

/** main → airtable → github, where github's run waits for a person to approve clock.now. */
async function waitingChain() {
  const p = project();
  await p.agent("github", { runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
  await p.agent("airtable");
  await p.agent("main");
  await p.connect("main", ["airtable"]);
  await p.connect("airtable", ["github"]);
  const started = await p.chat("main", "/ask airtable /ask github /tool clock.now {}");
  expect(started.status).toBe("waiting_agent");
  const hops = await p.until(async () => {
    const res = await p.api(`/api/conversations/${started.runId}`);
    const body = res.ok ? await res.json<any>() : null;
    return body?.hops.length === 2 && body.hops.every((h: any) => h.runId) ? body.hops : null;
  }, "both hops to start their runs");
  const [middle, last] = hops;
  await p.settled("github", last.runId, (s) => s === "waiting_approval");
  await p.settled("airtable", middle.runId, (s) => s === "waiting_agent");
  return { p, mainRun: started.runId, middle, last };
}

describe("cancelling a delegating run", () => {
  it("cancels every run down its chain: main, then airtable's, then github's (which waited for approval)", async () => {
    const { p, mainRun, middle, last } = await waitingChain();
    const res = await p.api(`/api/agents/main/runs/${mainRun}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    expect((await res.json<any>()).status).toBe("cancelled");
    const airtable = await p.settled("airtable", middle.runId);
    expect(airtable.run.status).toBe("cancelled");
    expect(airtable.run.error).toContain("agent 'main'");
    const github = await p.settled("github", last.runId);
    expect(github.run.status).toBe("cancelled");
    expect(github.run.error).toContain("agent 'airtable'");
    // Nothing waits for a person any more.
    expect((await p.json("/api/agents/github/runs")).runs.filter((r: any) => r.status === "waiting_approval")).toEqual(
      [],
    );
    const mainTrace = (await p.json(`/api/agents/main/runs/${mainRun}`)).trace;
    expect(mainTrace.some((t: any) => t.name === "bus_cancel_sent" && t.data.target === "airtable")).toBe(true);
  });

  it("without a cancel the same chain goes on: approving github's call completes all three (the positive control)", async () => {
    const { p, mainRun, last } = await waitingChain();
    const approved = await p.api(`/api/agents/github/runs/${last.runId}/approval`, {
      method: "POST",
      json: { decision: "approve" },
    });
    expect(approved.status).toBe(200);
    expect((await p.settled("main", mainRun)).run.status).toBe("completed");
  });

  it("cancelling the deepest run does not cancel its askers: they get the error and go on", async () => {
    const { p, mainRun, last } = await waitingChain();
    expect((await p.api(`/api/agents/github/runs/${last.runId}/cancel`, { method: "POST" })).status).toBe(200);
    const main = await p.settled("main", mainRun);
    expect(main.run.status).toBe("completed");
    expect(p.replyOf(main)).toMatch(/could not answer|cancelled/);
  });

  it("only the asker may cancel its question: a cancel from another agent is refused and the run keeps waiting", async () => {
    const { p, mainRun, middle, last } = await waitingChain();
    const base = {
      conversationId: mainRun,
      to: "airtable",
      project: p.name,
      depth: 1,
      replyTo: { runId: mainRun, callId: middle.callId },
      deadlineAt: Date.now() + 60_000,
      createdAt: Date.now(),
    };
    await env.BUS.send({
      ...base,
      id: cancelIdOf(middle.messageId),
      from: "github",
      type: "cancel",
      payload: { reason: "forged" },
    });
    await new Promise((r) => setTimeout(r, 500));
    expect((await p.json(`/api/agents/airtable/runs/${middle.runId}`)).run.status).toBe("waiting_agent");
    expect((await p.json(`/api/agents/github/runs/${last.runId}`)).run.status).toBe("waiting_approval");
    // The asker's own cancel, after it, is applied.
    expect((await p.api(`/api/agents/main/runs/${mainRun}/cancel`, { method: "POST" })).status).toBe(200);
    expect((await p.settled("airtable", middle.runId)).run.status).toBe("cancelled");
  });

  it("an eviction between the cancel and its bus cancels: the agent's next start sends them", async () => {
    const { p, mainRun, middle } = await waitingChain();
    const main = env.AGENT_DO.get(env.AGENT_DO.idFromName(`${p.name}.main`));
    // What an eviction leaves: main's run cancelled, its question to airtable still pending, no cancel queued.
    await runInDurableObject(main, async (instance) => {
      await (
        instance as unknown as { features: { driver: { cancel(runId: string, by: string): Promise<unknown> } } }
      ).features.driver.cancel(mainRun, "test");
    });
    await expect(runInDurableObject(main, (_i, state) => state.abort("test: evicted"))).rejects.toThrow();
    expect((await p.json(`/api/agents/airtable/runs/${middle.runId}`)).run.status).toBe("waiting_agent");
    // Any request wakes main; its start finds the cancelled run's pending question and cancels it.
    expect((await p.json(`/api/agents/main/runs/${mainRun}`)).run.status).toBe("cancelled");
    expect((await p.settled("airtable", middle.runId)).run.status).toBe("cancelled");
  });
});
