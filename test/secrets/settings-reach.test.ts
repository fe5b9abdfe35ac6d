import { describe, expect, it } from "vitest";
import { uniqueName } from "../api/client";
import { doubleUrl } from "../runs/scripted";
import { listenerKey, listenerUrl, tenant } from "./helpers";

// Every project setting an agent keeps in memory reaches it when the setting changes: each test warms
// an agent (one turn, so its secrets, tool set and model port are cached), changes the setting, and
// looks at the agent's next call. Tool secrets and grants changed between calls are in tenancy.test.ts;
// the OTLP settings in test/telemetry/settings-reach.test.ts.

type Tenant = Awaited<ReturnType<typeof tenant>>;
const deploymentKey = "sk-test-double-key";
const listenerHost = () => new URL(listenerUrl()).hostname;

/** An agent of `t` on `model`, with what the double's calls of `watched` (its model's name unless told) carried. */
async function agentOf(
  t: Tenant,
  model: Record<string, unknown>,
  runtime: Record<string, unknown> = {},
  watched = String(model.name),
) {
  const name = uniqueName("reach");
  const created = await t.call("/api/agents", { method: "POST", json: { name, model, runtime } });
  expect(created.status, await created.clone().text()).toBe(201);
  const modelName = watched;
  return {
    name,
    send: async (content: string) => {
      const res = await t.call(`/api/agents/${name}/messages`, { method: "POST", json: { content } });
      return { status: res.status, body: (await res.json()) as any };
    },
    script: (steps: unknown[]) =>
      fetch(`${doubleUrl()}/__script/${modelName}`, { method: "POST", body: JSON.stringify(steps) }),
    auth: async (): Promise<(string | null)[]> => (await fetch(`${doubleUrl()}/__auth/${modelName}`)).json(),
  };
}

describe("a project's model settings reach a running agent at its next call", () => {
  it("a replaced OPENAI_API_KEY answers the next call; the old one is never sent again", async () => {
    const t = await tenant("reach-key");
    const [first, second] = [`sk-1-${crypto.randomUUID()}`, `sk-2-${crypto.randomUUID()}`];
    expect((await t.setSecret("OPENAI_API_KEY", first)).status).toBe(200);
    expect((await t.setSecret("OPENAI_BASE_URL", `${doubleUrl()}/v1`)).status).toBe(200);
    const agent = await agentOf(t, { provider: "openai", name: uniqueName("model") });
    expect((await agent.send("one")).body.status).toBe("completed");
    expect((await t.setSecret("OPENAI_API_KEY", second)).status).toBe(200);
    expect((await agent.send("two")).body.status).toBe("completed");
    expect((await agent.send("three")).body.status).toBe("completed");
    expect(await agent.auth()).toEqual([`Bearer ${first}`, `Bearer ${second}`, `Bearer ${second}`]);
  });

  it("a replaced OPENAI_BASE_URL takes the next call to the new server; deleted, the deployment's server and key answer", async () => {
    const t = await tenant("reach-url");
    const elsewhere = listenerKey();
    expect((await t.setSecret("OPENAI_BASE_URL", `${doubleUrl()}/v1`)).status).toBe(200);
    const agent = await agentOf(t, { provider: "openai", name: uniqueName("model") });
    expect((await agent.send("one")).body.status).toBe("completed");
    expect(await elsewhere.requests()).toHaveLength(0);

    expect((await t.setSecret("OPENAI_BASE_URL", `${listenerUrl()}/t/${elsewhere.url.split("/")[4]}/v1`)).status).toBe(
      200,
    );
    // The listener is no model server: the run fails, but the call went there and nowhere else.
    expect((await agent.send("two")).body.status).toBe("failed");
    const reached = await elsewhere.requests();
    expect(reached.length).toBeGreaterThan(0);
    expect((reached[0] as unknown as { path: string }).path).toMatch(/\/v1\/chat\/completions$/);
    expect(await agent.auth()).toEqual(["Bearer no-key"]);

    const seen = reached.length;
    expect((await t.call(`/api/projects/${t.slug}/secrets/OPENAI_BASE_URL`, { method: "DELETE" })).status).toBe(204);
    expect((await agent.send("three")).body.status).toBe("completed");
    expect(await elsewhere.requests()).toHaveLength(seen);
    expect(await agent.auth()).toEqual(["Bearer no-key", `Bearer ${deploymentKey}`]);
  });

  it("a cascade's OpenAI model reads the project's key, and hears of its change (control: the deployment's key before the project set one)", async () => {
    const t = await tenant("reach-cascade");
    // Anthropic has no key in the tests' deployment: the cascade passes over it to the double.
    const watched = uniqueName("model");
    const agent = await agentOf(
      t,
      { provider: "anthropic", name: "claude-haiku-4-5", cascade: [{ provider: "openai", name: watched }] },
      {},
      watched,
    );
    expect((await agent.send("one")).body.status).toBe("completed");
    const key = `sk-c-${crypto.randomUUID()}`;
    expect((await t.setSecret("OPENAI_API_KEY", key)).status).toBe(200);
    expect((await agent.send("two")).body.status).toBe("completed");
    expect(await agent.auth()).toEqual([`Bearer ${deploymentKey}`, `Bearer ${key}`]);
  });
});

describe("a project's providers reach a running agent at its next call", () => {
  it("a provider moved to another server takes the next call there; its key replaced, the next call carries the new one", async () => {
    const t = await tenant("reach-prov");
    const [first, second] = [`pk-1-${crypto.randomUUID()}`, `pk-2-${crypto.randomUUID()}`];
    expect((await t.setSecret("LOCAL_KEY", first)).status).toBe(200);
    const provider = (baseUrl: string) =>
      t.call(`/api/projects/${t.slug}/providers/local`, {
        method: "PUT",
        json: { kind: "openai-compatible", baseUrl, keySecret: "LOCAL_KEY" },
      });
    const put = await provider(`${doubleUrl()}/v1`);
    expect(put.status, await put.clone().text()).toBe(200);
    const modelName = uniqueName("model");
    const agent = await agentOf(t, { provider: "local", name: modelName });
    expect((await agent.send("one")).body.status).toBe("completed");

    expect((await t.setSecret("LOCAL_KEY", second)).status).toBe(200);
    expect((await agent.send("two")).body.status).toBe("completed");
    expect(await agent.auth()).toEqual([`Bearer ${first}`, `Bearer ${second}`]);

    const elsewhere = listenerKey();
    const moved = await provider(`${listenerUrl()}/t/${elsewhere.url.split("/")[4]}/v1`);
    expect(moved.status).toBe(200);
    expect(((await moved.json()) as any).agents).toEqual([agent.name]);
    expect((await agent.send("three")).body.status).toBe("failed");
    const reached = await elsewhere.requests();
    expect(reached.length).toBeGreaterThan(0);
    expect(reached[0]!.headers.authorization).toBe(`Bearer ${second}`);
    expect(await agent.auth()).toHaveLength(2);
  });
});

describe("a project's caps reach a running agent at its next call", () => {
  it("a project cap lowered below today's spend refuses the agent's next call at once, though it holds a lease from before (control: the call before it was admitted)", async () => {
    const t = await tenant("reach-cap");
    expect((await t.call("/api/quotas", { method: "PUT", json: { tokensPerDay: 1000 } })).status).toBe(200);
    const agent = await agentOf(t, { provider: "openai", name: uniqueName("model") });
    // 30 tokens a call: the agent now holds a lease of a tenth of 1000.
    expect((await agent.send("one")).body.status).toBe("completed");
    expect((await t.call("/api/quotas", { method: "PUT", json: { tokensPerDay: 30 } })).status).toBe(200);
    const refused = await agent.send("two");
    expect(refused.body.status).toBe("failed");
    expect(refused.body.error).toContain(`project '${t.slug}' has used 30 tokens of its 30 tokens per day`);
    expect(await agent.auth()).toHaveLength(1);
  });
});

describe("a setting changed while a run waits for a person reaches the run when it carries on", () => {
  it("a tool secret deleted while its call waits for approval is not sent when the call is approved; replaced, the new value is (control)", async () => {
    const t = await tenant("reach-wait");
    const target = listenerKey();
    const modelName = uniqueName("model");
    const runtime = {
      allowHosts: [listenerHost()],
      httpTools: [
        {
          name: "notes.add",
          description: "Adds a note",
          parameters: { type: "object", properties: { text: { type: "string" } } },
          endpoint: target.url,
          headers: { "X-Key": { secret: "HOOK_KEY" } },
          requiresApproval: true,
        },
      ],
    };
    expect((await t.setSecret("HOOK_KEY", "old-value-0001")).status).toBe(200);
    const agent = await agentOf(t, { provider: "openai", name: modelName }, runtime);
    const call = { toolCalls: [{ name: "notes.add", arguments: { text: "hi" } }] };
    await agent.script([call, { content: "done" }, call, { content: "done" }]);
    const approve = (runId: string) =>
      t.call(`/api/agents/${agent.name}/runs/${runId}/approval`, { method: "POST", json: { decision: "approve" } });

    // Replaced while waiting (control): the approved call carries the new value.
    const first = await agent.send("note one");
    expect(first.body.status).toBe("waiting_approval");
    expect((await t.setSecret("HOOK_KEY", "new-value-0002")).status).toBe(200);
    expect((await approve(first.body.runId)).status).toBe(200);
    expect((await target.requests()).map((r) => r.headers["x-key"])).toEqual(["new-value-0002"]);

    // Deleted while waiting: the approved call is refused, and nothing more reaches the endpoint.
    const second = await agent.send("note two");
    expect(second.body.status).toBe("waiting_approval");
    expect((await t.call(`/api/projects/${t.slug}/secrets/HOOK_KEY`, { method: "DELETE" })).status).toBe(204);
    expect((await approve(second.body.runId)).status).toBe(200);
    expect(await target.requests()).toHaveLength(1);
    const run = await (await t.call(`/api/agents/${agent.name}/runs/${second.body.runId}`)).text();
    expect(run).toContain(`no secret 'HOOK_KEY' in project '${t.slug}'`);
    expect(run).not.toContain("new-value-0002");
  });
});
