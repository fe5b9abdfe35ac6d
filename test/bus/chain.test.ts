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

    const started = await p.chat("main", "/ask airtable /ask github what is the default branch of the pantheon repository?");
    expect(started.status).toBe("waiting_agent");
    const run = await p.settled("main", started.runId);

    expect(run.run.status).toBe("completed");
    expect(p.replyOf(run)).toContain("The default branch of the pantheon repository is trunk.");
    expect(run.trace.some((t) => t.name === "bus_sent" && t.data.target === "airtable")).toBe(true);

    const chain = await p.json(`/api/conversations/${started.runId}`);
    expect(chain.root).toMatchObject({ agent: "main", runId: started.runId, status: "completed" });
    expect(chain.hops.map((h: any) => [h.from, h.to, h.depth, h.state, h.runStatus])).toEqual([
      ["main", "airtable", 1, "answered", "completed"],
      ["airtable", "github", 2, "answered", "completed"],
    ]);
    expect(chain.hops[1].reply.text).toContain("trunk");

    const asked = await p.json(`/api/agents/github/runs/${chain.hops[1].runId}`);
    expect(asked.run.trigger).toBe("agent:airtable");
  });
});
