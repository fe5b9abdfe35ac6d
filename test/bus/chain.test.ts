import { describe, expect, it } from "vitest";
import { project } from "./harness";

describe("delegation over the bus", () => {
  it("a question travels main → airtable → github and the answer comes back up the chain", async () => {
    const p = project();
    await p.agent("github", { systemPrompt: "The default branch of the pantheon repository is trunk." });
    await p.agent("airtable");
    await p.agent("main");
    await p.connect("main", ["airtable"]);
    await p.connect("airtable", ["github"]);

    const started = await p.chat(
      "main",
      "/ask airtable /ask github what is the default branch of the pantheon repository?",
    );
    expect(started.status).toBe("waiting_agent");
    const run = await p.settled("main", started.runId);

    expect(run.run.status).toBe("completed");
    expect(p.replyOf(run)).toContain("The default branch of the pantheon repository is trunk.");
    expect(run.trace.some((t) => t.name === "bus_sent" && t.data.target === "airtable")).toBe(true);

    const chain = await p.chain(started.runId, 2);
    expect(chain.root).toMatchObject({ agent: "main", runId: started.runId, status: "completed" });
    expect(chain.hops.map((h: any) => [h.from, h.to, h.depth, h.state, h.runStatus])).toEqual([
      ["main", "airtable", 1, "answered", "completed"],
      ["airtable", "github", 2, "answered", "completed"],
    ]);
    expect(chain.hops[1].reply.text).toContain("trunk");

    const asked = await p.json(`/api/agents/github/runs/${chain.hops[1].runId}`);
    expect(asked.run.trigger).toBe("agent:airtable");
  });

  it("a run another agent asked for names its conversation and its asker, in the run and in the run list", async () => {
    const p = project();
    await p.agent("github", { systemPrompt: "The default branch is trunk." });
    await p.agent("airtable");
    await p.agent("main");
    await p.connect("main", ["airtable"]);
    await p.connect("airtable", ["github"]);

    const started = await p.chat("main", "/ask airtable /ask github what is the default branch?");
    await p.settled("main", started.runId);
    const chain = await p.chain(started.runId, 2);
    const [first, second] = chain.hops;

    const middle = await p.json(`/api/agents/airtable/runs/${first.runId}`);
    expect(middle.run).toMatchObject({ conversationId: started.runId, askedBy: "main" });
    const last = await p.json(`/api/agents/github/runs/${second.runId}`);
    expect(last.run).toMatchObject({ conversationId: started.runId, askedBy: "airtable" });

    const listed = await p.json("/api/agents/github/runs");
    expect(listed.runs.find((r: any) => r.id === second.runId)).toMatchObject({
      conversationId: started.runId,
      askedBy: "airtable",
    });
    const own = await p.json(`/api/agents/main/runs/${started.runId}`);
    expect(own.run.conversationId).toBeUndefined();
    expect(own.run.askedBy).toBeUndefined();
  });
});
