import { describe, expect, it } from "vitest";
import { api } from "../api/client";
import { answer, askedQuestion, askingAgent } from "./asking-kit";

describe("a question an MCP server asks while its tool runs (elicitation)", () => {
  it("waits in the agent's questions for a person; the answer goes back and the tool's result carries it", async () => {
    const { agent } = await askingAgent();
    const { turn, question } = await askedQuestion(agent);
    expect(question).toMatchObject({
      server: "travel",
      message: "How many seats should I book?",
      requestedSchema: { type: "object", properties: { seats: { type: "number" } }, required: ["seats"] },
    });
    const answered = await answer(agent, question.id, { action: "accept", content: { seats: 3 } });
    expect(answered.status).toBe(204);
    const reply = (await (await turn).json()) as any;
    expect(reply.status).toBe("completed");
    expect(reply.reply.content).toBe("The tool travel.book returned: booked 3 seats");
    // Answered once: it is gone, and answering it again is a 404 naming it.
    expect(((await (await api(`/api/agents/${agent}/mcp/questions`)).json()) as any).questions).toEqual([]);
    const again = await answer(agent, question.id, { action: "accept", content: { seats: 4 } });
    expect(again.status).toBe(404);
    expect(((await again.json()) as any).error.message).toContain(`no MCP question '${question.id}' waits`);
  });

  it("a declined question ends the call cleanly: the server hears 'decline' and the run completes", async () => {
    const { agent } = await askingAgent();
    const { turn, question } = await askedQuestion(agent);
    expect((await answer(agent, question.id, { action: "decline" })).status).toBe(204);
    const reply = (await (await turn).json()) as any;
    expect(reply.status).toBe("completed");
    expect(reply.reply.content).toBe("The tool travel.book returned: declined");
  });

  it("refuses an accepted answer without the form's values (400 naming content), then takes a good one", async () => {
    const { agent } = await askingAgent();
    const { turn, question } = await askedQuestion(agent);
    const bad = await answer(agent, question.id, { action: "accept" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("content");
    expect((await answer(agent, question.id, { action: "accept", content: { seats: 1 } })).status).toBe(204);
    expect(((await (await turn).json()) as any).reply.content).toBe("The tool travel.book returned: booked 1 seats");
  });
});
