// An agent acts with its caller's rights: a chat token cannot do through the agent what its own
// route refuses it. Driven through the real worker (SELF) with the offline model, which calls the
// tool a message names (`/tool <name> <json>`, adapters/llm-offline/directives.ts).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, api, createAgent } from "../api/client";

type Scope = "chat" | "approve" | "admin";
const tokens: Partial<Record<Scope, string>> = {};

async function tokenOf(scope: Scope): Promise<string> {
  const res = await api("/api/tokens", { method: "POST", json: { name: `rights ${scope}`, scope } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

async function remember(agent: string, text: string): Promise<string> {
  const res = await api(`/api/agents/${agent}/memories`, { method: "POST", json: { text } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const memoryStatus = async (agent: string, id: string) => (await api(`/api/agents/${agent}/memories/${id}`)).status;

async function say(agent: string, content: string, token: string) {
  const res = await api(`/api/agents/${agent}/messages`, { method: "POST", json: { content }, token });
  expect(res.status).toBe(200);
  return (await res.json()) as { runId: string; status: string; reply: { content: string } | null };
}

async function runOf(agent: string, runId: string) {
  return (await (await api(`/api/agents/${agent}/runs/${runId}`)).json()) as {
    run: any;
    trace: { name: string; data: any }[];
  };
}

const forget = (id: string) => `/tool memory.forget {"id":"${id}"}`;

beforeAll(async () => {
  for (const scope of ["chat", "approve", "admin"] as const) tokens[scope] = await tokenOf(scope);
});

describe("a chat token cannot make the agent do what its own route refuses", () => {
  it("memory.forget from a chat token waits for approval, and the memory stays; the route itself refuses the same token", async () => {
    const { name } = await createAgent();
    const id = await remember(name, "The spare key is under the blue pot.");
    expect((await api(`/api/agents/${name}/memories/${id}`, { method: "DELETE", token: tokens.chat! })).status).toBe(
      403,
    );

    const sent = await say(name, forget(id), tokens.chat!);
    expect(sent.status).toBe("waiting_approval");
    expect(await memoryStatus(name, id)).toBe(200);

    const { run, trace } = await runOf(name, sent.runId);
    expect(run.principal).toMatchObject({ scope: "chat", name: "token:rights chat" });
    expect(run.pending).toEqual([expect.objectContaining({ tool: "memory.forget", approverScope: "admin" })]);
    expect(trace[0]).toMatchObject({ name: "run_started", data: { principal: { scope: "chat" } } });
    const scopeCheck = trace
      .find((s) => s.name === "gate_decisions")!
      .data.decisions.find((d: any) => d.gate === "scope");
    expect(scopeCheck.decision).toMatchObject({ allow: false, pending: "approval" });
    expect(scopeCheck.decision.reason).toContain(
      "'memory.forget' needs the 'admin' scope; this run acts for token:rights chat with the 'chat' scope",
    );
  });

  it("an approve token cannot approve it (it needs admin); an admin approval runs it and the memory is gone", async () => {
    const { name } = await createAgent();
    const id = await remember(name, "The gate code is 4711.");
    const sent = await say(name, forget(id), tokens.chat!);
    expect(sent.status).toBe("waiting_approval");

    const lent = await api(`/api/agents/${name}/runs/${sent.runId}/approval`, {
      method: "POST",
      json: { decision: "approve" },
      token: tokens.approve!,
    });
    expect(lent.status).toBe(403);
    expect(((await lent.json()) as any).error.message).toBe(
      "approving 'memory.forget' needs a token with the 'admin' scope (the scope of the tool's own route); this token has 'approve'",
    );
    expect(await memoryStatus(name, id)).toBe(200);
    expect((await runOf(name, sent.runId)).run.status).toBe("waiting_approval");

    const approved = await api(`/api/agents/${name}/runs/${sent.runId}/approval`, {
      method: "POST",
      json: { decision: "approve" },
      token: tokens.admin!,
    });
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as any).status).toBe("completed");
    expect(await memoryStatus(name, id)).toBe(404);
    const approval = (await runOf(name, sent.runId)).trace.find((s) => s.name === "approval");
    expect(approval?.data).toMatchObject({ approved: true, scope: "admin", by: "token:rights admin" });
  });

  it("an approve token may still reject it (rejecting lends nothing), and the memory stays", async () => {
    const { name } = await createAgent();
    const id = await remember(name, "The boat is called Wren.");
    const sent = await say(name, forget(id), tokens.chat!);
    const rejected = await api(`/api/agents/${name}/runs/${sent.runId}/approval`, {
      method: "POST",
      json: { decision: "reject", reason: "no" },
      token: tokens.approve!,
    });
    expect(rejected.status).toBe(200);
    expect(await memoryStatus(name, id)).toBe(200);
  });

  it("the same message from an admin token forgets at once (positive control)", async () => {
    const { name } = await createAgent();
    const id = await remember(name, "The cat is called Miso.");
    const sent = await say(name, forget(id), adminToken);
    expect(sent.status).toBe("completed");
    expect(await memoryStatus(name, id)).toBe(404);
    expect((await runOf(name, sent.runId)).run.principal).toEqual({ id: "admin", scope: "admin", name: "admin" });
  });

  it("with runtime.beyondScope 'refuse' the model reads why and the memory stays; an admin still forgets", async () => {
    const { name } = await createAgent({ runtime: { beyondScope: "refuse" } });
    const id = await remember(name, "The spare tyre is flat.");
    const sent = await say(name, forget(id), tokens.chat!);
    expect(sent.status).toBe("completed");
    expect(sent.reply?.content).toContain(
      "'memory.forget' needs the 'admin' scope; this run acts for token:rights chat with the 'chat' scope",
    );
    expect(await memoryStatus(name, id)).toBe(200);

    expect((await say(name, forget(id), adminToken)).status).toBe("completed");
    expect(await memoryStatus(name, id)).toBe(404);
  });

  it("a bad beyondScope is a 400 naming the field and the choices", async () => {
    const res = await api("/api/agents", {
      method: "POST",
      json: { name: `bad-${crypto.randomUUID().slice(0, 8)}`, runtime: { beyondScope: "ask" } },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.details.issues).toEqual([
      expect.objectContaining({ path: ["runtime", "beyondScope"], message: "one of 'wait' or 'refuse'" }),
    ]);
  });

  for (const [tool, args] of [
    ["plan.write", { feature: "nope", markdown: "# Plan\n\n## Tasks\n- one" }],
    ["tasks.sync", { feature: "nope" }],
    ["task.start", { feature: "nope", task: 1 }],
  ] as const) {
    it(`${tool} from a chat token waits for an admin; from an admin it reaches the tool (positive control)`, async () => {
      const { name } = await createAgent({ runtime: { tools: ["clock.now", tool] } });
      const message = `/tool ${tool} ${JSON.stringify(args)}`;
      const chat = await say(name, message, tokens.chat!);
      expect(chat.status).toBe("waiting_approval");
      expect((await runOf(name, chat.runId)).trace.some((s) => s.name === "tool_call")).toBe(false);

      const admin = await say(name, message, adminToken);
      expect(admin.status).toBe("completed");
      // The call passed the scope check and ran (the feature does not exist: the tool says so).
      expect((await runOf(name, admin.runId)).trace.some((s) => s.name === "tool_call" && s.data.tool === tool)).toBe(
        true,
      );
    });
  }
});

describe("memory.search through the agent's MCP `ask` reads no more than search_memory", () => {
  async function connect(agent: string, token: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`https://pantheon.test/mcp/agents/${agent}`), {
      fetch: (input, init) => SELF.fetch(input instanceof Request ? input : String(input), init),
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client(
      { name: "rights-test", version: "1.0.0" },
      { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(transport);
    return client;
  }
  const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

  it("a chat token: search_memory is refused and ask with memory.search waits, the memory's text unread; an admin reads it both ways", async () => {
    const { name } = await createAgent();
    await remember(name, "The locker combination is 9931.");
    const chat = await connect(name, tokens.chat!);
    await expect(chat.callTool({ name: "search_memory", arguments: { query: "locker combination" } })).rejects.toThrow(
      /'admin' scope/,
    );
    const asked = textOf(
      await chat.callTool({
        name: "ask",
        arguments: { message: '/tool memory.search {"query":"locker combination"}' },
      }),
    );
    expect(asked).not.toContain("9931");
    expect(asked).toMatch(/approv/i);
    await chat.close();

    const admin = await connect(name, adminToken);
    expect(
      textOf(await admin.callTool({ name: "search_memory", arguments: { query: "locker combination" } })),
    ).toContain("9931");
    expect(
      textOf(
        await admin.callTool({
          name: "ask",
          arguments: { message: '/tool memory.search {"query":"locker combination"}' },
        }),
      ),
    ).toContain("9931");
    await admin.close();
  });
});
