import { describe, expect, it } from "vitest";
import { httpTool, listenerKey, listenerUrl, tenant } from "../secrets/helpers";

const ndjson = { "content-type": "application/x-ndjson" };
const listenerHost = () => new URL(listenerUrl()).hostname;

type Line = { type: string; [key: string]: unknown };
const linesOf = (text: string): Line[] =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

/** An agent with a tool secret, two sessions of messages and dated memories: what a snapshot must keep. */
async function furnishedAgent(a: Awaited<ReturnType<typeof tenant>>, secretValue: string) {
  expect((await a.setSecret("CRM_KEY", secretValue)).status).toBe(200);
  const runtime = { allowHosts: [listenerHost()], httpTools: [httpTool(listenerKey().url, "CRM_KEY")] };
  expect(
    (
      await a.call("/api/agents", {
        method: "POST",
        json: { name: "scout", systemPrompt: "You scout venues. Be brief.", runtime },
      })
    ).status,
  ).toBe(201);
  for (const content of ["hello there", `remember the key ${secretValue}`])
    expect((await a.call("/api/agents/scout/messages", { method: "POST", json: { content } })).status).toBe(200);
  const side = (await (
    await a.call("/api/agents/scout/sessions", { method: "POST", json: { title: "Lisbon trip" } })
  ).json()) as { id: string };
  expect(
    (
      await a.call("/api/agents/scout/messages", {
        method: "POST",
        json: { content: "book the tram museum", session: side.id },
      })
    ).status,
  ).toBe(200);
  for (const memory of [
    { text: "Ana prefers window seats", kind: "fact", occurredAt: "2024-05-03" },
    { text: "The venue on Rua Augusta closes at 22:00", kind: "instruction" },
  ])
    expect((await a.call("/api/agents/scout/memories", { method: "POST", json: memory })).status).toBe(201);
  return side.id;
}

const history = async (t: Awaited<ReturnType<typeof tenant>>, agent: string) => {
  const sessions = (
    (await (await t.call(`/api/agents/${agent}/sessions`)).json()) as {
      sessions: { id: string; title: string; isDefault: boolean }[];
    }
  ).sessions;
  const messages: Record<string, unknown[]> = {};
  for (const s of sessions) {
    const page = (await (await t.call(`/api/agents/${agent}/messages?session=${s.id}&limit=100`)).json()) as {
      messages: { id: string; role: string; content: string; createdAt: number }[];
    };
    messages[s.id] = page.messages.map(({ id, role, content, createdAt }) => ({ id, role, content, createdAt }));
  }
  return { sessions: sessions.map(({ id, title, isDefault }) => ({ id, title, isDefault })), messages };
};

/** The snapshot after its header, cut into slices of about `size` characters at line ends (as the CLI sends it). */
function slices(body: string, size: number): string[] {
  const out: string[] = [];
  let current = "";
  for (const line of body.split("\n").filter(Boolean)) {
    if (current && current.length + line.length > size) {
      out.push(current);
      current = "";
    }
    current += line + "\n";
  }
  if (current) out.push(current);
  return out;
}

describe("agent snapshots: one file, restored whole into another project", () => {
  it("a round trip keeps every session, message and memory (ids, times, text); secrets are named, never included", async () => {
    const a = await tenant("snap-a");
    const b = await tenant("snap-b");
    const secret = `crm-${crypto.randomUUID()}`;
    await furnishedAgent(a, secret);

    const res = await a.call("/api/agents/scout/snapshot");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    const text = await res.text();
    expect(text).not.toContain(secret);
    const [header, ...rest] = linesOf(text);
    expect(header).toMatchObject({
      type: "snapshot",
      format: "pantheon-agent-snapshot",
      version: 1,
      agent: "scout",
      project: a.slug,
      secrets: ["CRM_KEY"],
      counts: { sessions: 2, messages: 6, memories: 2 },
    });
    expect((header as unknown as { config: { pantheon: { instructions: string } } }).config.pantheon.instructions).toBe(
      "You scout venues. Be brief.",
    );
    expect(rest.filter((l) => l.type === "message").map((l) => l.content)).toContain("hello there");

    // The target project needs the secret the tool names before the agent can be made there.
    const headerLine = text.slice(0, text.indexOf("\n") + 1);
    const missing = await b.call("/api/agents/copy/snapshot/restore", {
      method: "POST",
      body: headerLine,
      headers: ndjson,
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain("no secret 'CRM_KEY'");
    expect((await b.setSecret("CRM_KEY", "b-own-value")).status).toBe(200);

    const made = await b.call("/api/agents/copy/snapshot/restore", {
      method: "POST",
      body: headerLine,
      headers: ndjson,
    });
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({
      agent: "copy",
      created: true,
      secrets: [{ name: "CRM_KEY", set: true }],
    });
    let restored = { sessions: 0, messages: 0, memories: 0 };
    for (const slice of slices(text.slice(headerLine.length), 400)) {
      const part = await b.call("/api/agents/copy/snapshot/restore", { method: "POST", body: slice, headers: ndjson });
      expect(part.status).toBe(200);
      const report = (await part.json()) as typeof restored & { errors: unknown[] };
      expect(report.errors).toEqual([]);
      restored = {
        sessions: restored.sessions + report.sessions,
        messages: restored.messages + report.messages,
        memories: restored.memories + report.memories,
      };
    }
    expect(restored).toEqual({ sessions: 2, messages: 6, memories: 2 });

    // Every message as it was, but the secret a person typed is redacted as in every export.
    const original = JSON.parse(JSON.stringify(await history(a, "scout")).replaceAll(secret, "[redacted]")) as unknown;
    expect(JSON.stringify(original)).toContain("remember the key [redacted]");
    expect(await history(b, "copy")).toEqual(original);
    const exportOf = async (t: typeof a, agent: string) =>
      linesOf(await (await t.call(`/api/agents/${agent}/memories/export`)).text()).map(
        ({ id, kind, text, occurredAt, createdAt }) => ({ id, kind, text, occurredAt, createdAt }),
      );
    expect(await exportOf(b, "copy")).toEqual(await exportOf(a, "scout"));
    const copy = (await (await b.call("/api/agents/copy")).json()) as {
      systemPrompt: string;
      runtime: { httpTools: { headers: unknown }[] };
    };
    expect(copy.systemPrompt).toBe("You scout venues. Be brief.");
    expect(copy.runtime.httpTools[0]!.headers).toEqual({ "X-Key": { secret: "CRM_KEY" } });
    // The restored agent answers in its restored default thread.
    expect(
      (await b.call("/api/agents/copy/messages", { method: "POST", json: { content: "still there?" } })).status,
    ).toBe(200);

    // Sent again (a restore cut off and run once more), nothing is doubled.
    const again = await b.call("/api/agents/copy/snapshot/restore", {
      method: "POST",
      body: text.slice(headerLine.length),
      headers: ndjson,
    });
    expect(await again.json()).toMatchObject({ sessions: 0, messages: 0, memories: 0, existing: 10, errors: [] });
  });

  it("refuses what a snapshot may not do, each beside the request that works", async () => {
    const a = await tenant("snap-r");
    const b = await tenant("snap-s");
    await furnishedAgent(a, `crm-${crypto.randomUUID()}`);

    // A chat token reads messages but may not take the agent whole; another project's admin reaches nothing.
    expect((await a.call("/api/agents/scout/snapshot", {}, a.chat)).status).toBe(403);
    expect((await a.call("/api/agents/scout/snapshot", {}, b.admin)).status).toBe(401);
    expect((await b.call("/api/agents/scout/snapshot")).status).toBe(404);
    const text = await (await a.call("/api/agents/scout/snapshot")).text();
    const headerLine = text.slice(0, text.indexOf("\n") + 1);

    // A name that is taken is not overwritten by a header; without the header the lines go into it.
    expect((await a.call("/api/agents", { method: "POST", json: { name: "taken" } })).status).toBe(201);
    const taken = await a.call("/api/agents/taken/snapshot/restore", {
      method: "POST",
      body: headerLine,
      headers: ndjson,
    });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as { error: { message: string } }).error.message).toContain("--into-existing");
    const into = await a.call("/api/agents/taken/snapshot/restore", {
      method: "POST",
      body: text.slice(headerLine.length),
      headers: ndjson,
    });
    expect(into.status).toBe(200);
    expect(await into.json()).toMatchObject({ created: false, sessions: 2, messages: 6, memories: 2 });

    // Lines without a header go only into an agent that exists.
    expect(
      (
        await a.call("/api/agents/nobody/snapshot/restore", {
          method: "POST",
          body: text.slice(headerLine.length),
          headers: ndjson,
        })
      ).status,
    ).toBe(404);
    // Not JSON lines: 415 naming the content type.
    expect((await a.call("/api/agents/fresh/snapshot/restore", { method: "POST", body: headerLine })).status).toBe(415);
    // A newer format is refused by its field; a bad line is named by number and the good ones are kept.
    const newer = headerLine.replace('"version":1', '"version":2');
    const refused = await a.call("/api/agents/fresh/snapshot/restore", {
      method: "POST",
      body: newer,
      headers: ndjson,
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "line 1 (the snapshot header): version: this deployment reads snapshot version 1",
    );
    const mixed = `${headerLine}{"type":"session","id":"s-1","title":"Kept","isDefault":false,"createdAt":1,"updatedAt":1}\n{"type":"spell"}\nnot json\n{"type":"message","id":"m-1","sessionId":"nowhere","role":"user","content":"x","createdAt":1}\n`;
    const partly = await a.call("/api/agents/fresh/snapshot/restore", { method: "POST", body: mixed, headers: ndjson });
    expect(partly.status).toBe(201);
    const report = (await partly.json()) as { sessions: number; errors: { line: number; message: string }[] };
    expect(report.sessions).toBe(1);
    expect(report.errors.map((e) => e.line)).toEqual([3, 4, 5]);
    expect(report.errors[0]!.message).toContain("'spell' is not a snapshot line");
    expect(report.errors[2]!.message).toContain("session 'nowhere' is not in this agent");
  });
});
