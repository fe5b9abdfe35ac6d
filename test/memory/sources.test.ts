import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName } from "../api/client";
import { preview, setScript } from "./helpers";

async function addDoc(agent: string, source: string, title: string, text: string) {
  const res = await api(`/api/agents/${agent}/sources/${source}/documents`, { method: "POST", json: { title, text } });
  if (res.status !== 201) throw new Error(`add document failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { documentId: string; chunks: { id: string }[] };
}

const runbook = "To restart the billing service, drain the queue first, then run the deploy job with the flag --safe.";

describe("shared context sources", () => {
  it("chunks a long document into its source and retrieves the chunk that answers", async () => {
    const { name } = await createAgent();
    await setScript(name, { contextSources: ["docs"] });
    const paragraphs = Array.from(
      { length: 8 },
      (_, i) => `Section ${i}. ${"Background text about unrelated operations. ".repeat(8)}`,
    );
    paragraphs.splice(5, 0, runbook);
    const added = await addDoc(name, "docs", "Ops runbook", paragraphs.join("\n\n"));
    expect(added.chunks.length).toBeGreaterThan(1);
    const view = await preview(name, "How do I restart the billing service?");
    expect(view.sources).toEqual(["memory", "docs"]);
    const hit = view.items.find((i) => i.included && i.text.includes("drain the queue"));
    expect(hit?.source).toBe("docs");
    expect(hit?.kind).toBe("chunk");
  });

  it("an agent reads another agent's source only when that agent's script grants it", async () => {
    const owner = uniqueName("owner");
    await setScript(owner, { contextSources: ["docs", "private"], grants: ["docs"] });
    await addDoc(owner, "docs", "Ops runbook", runbook);
    await addDoc(
      owner,
      "private",
      "Salaries",
      "The billing service team salaries are confidential and stored in the vault.",
    );

    const reader = uniqueName("reader");
    // A bare-string grant reaches the owner's connections: the reader is one.
    await setScript(reader, { contextSources: [`${owner}/docs`, `${owner}/private`], connections: [owner] });
    const view = await preview(reader, "How do I restart the billing service?");
    const shared = view.items.find((i) => i.text.includes("drain the queue"));
    expect(shared?.source).toBe(`${owner}/docs`);
    expect(shared?.included).toBe(true);
    expect(view.items.some((i) => i.text.includes("salaries"))).toBe(false);
    expect(view.warnings.join("\n")).toContain(`does not grant its source 'private'`);
  });

  it("an agent that does not list another agent's source never sees it, granted or not", async () => {
    const owner = uniqueName("owner");
    await setScript(owner, { contextSources: ["docs"], grants: ["docs"] });
    await addDoc(owner, "docs", "Ops runbook", runbook);
    const stranger = uniqueName("stranger");
    await setScript(stranger, { contextSources: [] });
    const view = await preview(stranger, "How do I restart the billing service?");
    expect(view.items.some((i) => i.text.includes("drain the queue"))).toBe(false);
  });

  it("refuses a document for the reserved source name 'memory'", async () => {
    const { name } = await createAgent();
    const res = await api(`/api/agents/${name}/sources/memory/documents`, {
      method: "POST",
      json: { title: "x", text: "y" },
    });
    expect(res.status).toBe(400);
  });
});
