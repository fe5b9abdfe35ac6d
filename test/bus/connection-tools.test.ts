import { describe, expect, it } from "vitest";
import { api, createAgent } from "../api/client";

async function askTool(agent: string, target: string) {
  const { tools } = (await (await api(`/api/agents/${agent}/tools`)).json()) as {
    tools: { name: string; description: string; runtime: string }[];
  };
  return tools.find((t) => t.name === `ask_${target}`);
}

describe("each connection is a tool described by its target", () => {
  it("ask_<agent> carries the target's description, and follows it when it changes", async () => {
    const crm = await createAgent({ description: "Keeps the customer records in Airtable." });
    const boss = await createAgent({ description: "Coordinates." });
    const put = await api(`/api/agents/${boss.name}/connections`, { method: "PUT", json: { connections: [crm.name] } });
    expect(put.status).toBe(200);

    const tool = await askTool(boss.name, crm.name);
    expect(tool).toMatchObject({ runtime: "agent" });
    expect(tool!.description).toContain("Keeps the customer records in Airtable.");

    await api(`/api/agents/${crm.name}`, {
      method: "PATCH",
      json: { description: "Answers questions about invoices." },
    });
    expect((await askTool(boss.name, crm.name))!.description).toContain("Answers questions about invoices.");
  });
});
