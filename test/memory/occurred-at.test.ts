import { describe, expect, it } from "vitest";
import { api, createAgent } from "../api/client";
import { preview, remember, say } from "./helpers";

const ndjson = { "content-type": "application/x-ndjson" };
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Memory {
  id: string;
  text: string;
  createdAt: number;
  occurredAt?: number;
}

describe("occurredAt: when the thing a memory tells happened", () => {
  it("the API takes an ISO date, keeps it apart from when the memory was stored, and the context shows it", async () => {
    const { name } = await createAgent();
    const stored = (await remember(name, "We adopted a beagle called Biscuit", {
      kind: "episode",
      occurredAt: "2023-03-12",
    })) as unknown as Memory;
    expect(stored.occurredAt).toBe(Date.UTC(2023, 2, 12));
    expect(stored.createdAt).toBeGreaterThan(Date.UTC(2025, 0, 1));
    const read = (await (await api(`/api/agents/${name}/memories/${stored.id}`)).json()) as Memory;
    expect(read.occurredAt).toBe(Date.UTC(2023, 2, 12));

    const { messages } = await preview(name, "When did we adopt Biscuit?");
    expect(messages[1]!.content).toContain("- [memory 2023-03-12] We adopted a beagle called Biscuit");
  });

  it.each([
    [1678579200, "looks like seconds"],
    ["2023-03-12T10:00:00", "a date-time with a time zone"],
    ["March 12", "ISO 8601 date"],
    [true, "epoch milliseconds"],
  ])("refuses occurredAt %j with a 400 naming the field", async (occurredAt, hint) => {
    const { name } = await createAgent();
    const res = await api(`/api/agents/${name}/memories`, {
      method: "POST",
      json: { text: "We adopted a beagle", occurredAt },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { issues: { path: string[]; message: string }[] } } };
    expect(body.error.details.issues[0]?.path).toEqual(["occurredAt"]);
    expect(body.error.details.issues[0]?.message).toContain(hint);
  });

  it("import takes it per line, reports a bad one by line and field, and export gives it back", async () => {
    const { name } = await createAgent();
    const body = [
      JSON.stringify({ id: "moved", kind: "episode", text: "We moved to Lisbon", occurredAt: "2023-06-03T09:00:00Z" }),
      JSON.stringify({ kind: "episode", text: "We moved to Porto", occurredAt: "soon" }),
      JSON.stringify({ id: "ran", kind: "episode", text: "I ran a half marathon", occurredAt: Date.UTC(2023, 9, 1) }),
    ].join("\n");
    const report = (await (
      await api(`/api/agents/${name}/memories/import`, { method: "POST", headers: ndjson, body })
    ).json()) as {
      imported: number;
      errors: { line: number; message: string }[];
    };
    expect(report.imported).toBe(2);
    expect(report.errors).toEqual([{ line: 2, message: expect.stringMatching(/^occurredAt: an ISO 8601 date/) }]);
    const exported = (await (await api(`/api/agents/${name}/memories/export`)).text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Memory);
    expect(exported.map((m) => [m.id, m.occurredAt])).toEqual([
      ["moved", Date.UTC(2023, 5, 3, 9)],
      ["ran", Date.UTC(2023, 9, 1)],
    ]);
  });

  it("an imported old value does not supersede the newer one already known", async () => {
    const { name } = await createAgent();
    const now = await remember(name, "The user lives in Berlin", { occurredAt: "2024-02-01" });
    const body = JSON.stringify({ id: "lyon", kind: "fact", text: "The user lives in Lyon", occurredAt: "2021-05-01" });
    await api(`/api/agents/${name}/memories/import`, { method: "POST", headers: ndjson, body });
    const berlin = (await (await api(`/api/agents/${name}/memories/${now.id}`)).json()) as { supersededBy?: string };
    expect(berlin.supersededBy).toBeUndefined();
  });

  it("a memory taken from the conversation happened when the message says: 'yesterday' is the day before it was said", async () => {
    const { name } = await createAgent();
    await say(name, "My dog is Rex. I moved to Lisbon yesterday.");
    const { memories } = (await (await api(`/api/agents/${name}/memories`)).json()) as { memories: Memory[] };
    const moved = memories.find((m) => m.text === "The user lives in Lisbon");
    expect(moved).toBeDefined();
    expect(dayOf(moved!.occurredAt!)).toBe(dayOf(moved!.createdAt - 86_400_000));
  });
});
