import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName } from "../api/client";

// Issue 26, item 5: exports are cleaned by the same detector as traces and the output gate. The test
// deployment declares AIRTABLE_KEY for tools (vitest.config.ts); an operator pasted it, encoded,
// into a prompt and a memory.
const secret = "secret-airtable-value-123";
const forms = {
  base64: btoa(secret),
  hex: [...secret].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join(""),
  reversed: [...secret].reverse().join(""),
  spaced: [...secret].join(" "),
};
const leaked = (text: string) =>
  Object.entries(forms)
    .filter(([, form]) => text.includes(form))
    .map(([name]) => name);

describe("exports hold no form of a secret", () => {
  it("the agent export (every format), the project export and the memory export are redacted; the rest is kept", async () => {
    const agent = await createAgent({
      description: "Keeps notes",
      systemPrompt: `Remember the vault: ${forms.base64} and ${forms.reversed}. Be kind.`,
    });
    const memory = await api(`/api/agents/${agent.name}/memories`, {
      method: "POST",
      json: { text: `The key as hex is ${forms.hex}, spaced ${forms.spaced}; Ann likes mangoes.`, kind: "fact" },
    });
    expect(memory.status).toBe(201);

    for (const format of ["openai", "anthropic", "opencode"]) {
      const res = await api(`/api/agents/${agent.name}/export?format=${format}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(leaked(text), format).toEqual([]);
      expect(text).toContain("Be kind.");
    }
    const project = await (await api("/api/projects/default/export")).text();
    expect(leaked(project)).toEqual([]);
    expect(project).toContain("Be kind.");

    const memories = await (await api(`/api/agents/${agent.name}/memories/export`)).text();
    expect(leaked(memories)).toEqual([]);
    expect(memories).toContain("Ann likes mangoes.");
    expect(memories).toContain("[redacted]");
    // Still JSON lines: the redaction is inside each record's strings.
    for (const line of memories.trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
  });

  it("the positive control: an agent without secrets exports as it was written", async () => {
    const agent = await createAgent({
      name: uniqueName("plain"),
      systemPrompt: "Answer in French. Use base64 like aGVsbG8= when asked.",
    });
    const text = await (await api(`/api/agents/${agent.name}/export?format=openai`)).text();
    expect(text).toContain("Answer in French. Use base64 like aGVsbG8= when asked.");
  });
});
