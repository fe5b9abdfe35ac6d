import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { uniqueName, type ErrorBody } from "../api/client";
import { doubleUrl } from "../runs/scripted";
import { makeProjectSecrets } from "../../durable-objects/agent/secrets";
import { tenant } from "./helpers";

const deploymentKey = "sk-test-double-key";
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** An agent of `t` whose model is the double, with its own model name; what each call carried. */
async function modelAgent(t: Tenant) {
  const model = uniqueName("model");
  const name = uniqueName("mk");
  const created = await t.call("/api/agents", {
    method: "POST",
    json: { name, model: { provider: "openai", name: model } },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  return {
    name,
    model,
    send: async (content: string) => {
      const res = await t.call(`/api/agents/${name}/messages`, { method: "POST", json: { content } });
      return { status: res.status, body: (await res.json()) as any };
    },
    script: (steps: unknown[]) =>
      fetch(`${doubleUrl()}/__script/${model}`, { method: "POST", body: JSON.stringify(steps) }),
    /** The Authorization header of each model call the double received for this agent. */
    auth: async (): Promise<(string | null)[]> => (await fetch(`${doubleUrl()}/__auth/${model}`)).json(),
    resolved: async () => ((await (await t.call(`/api/agents/${name}`)).json()) as any).resolvedModel,
  };
}

describe("a project's own model keys answer only its own agents' model calls", () => {
  it("b's agent calls its model with b's key at b's server; a's agent with the deployment's key (control); the API says whose key answers, never a value", async () => {
    const a = await tenant("mk-a");
    const b = await tenant("mk-b");
    const bKey = `sk-b-${crypto.randomUUID()}`;
    expect((await b.setSecret("OPENAI_API_KEY", bKey)).status).toBe(200);
    expect((await b.setSecret("OPENAI_BASE_URL", `${doubleUrl()}/v1`)).status).toBe(200);
    const bAgent = await modelAgent(b);
    const aAgent = await modelAgent(a);

    expect(await bAgent.send("hello from b")).toMatchObject({ status: 200, body: { status: "completed" } });
    expect(await aAgent.send("hello from a")).toMatchObject({ status: 200, body: { status: "completed" } });
    expect(await bAgent.auth()).toEqual([`Bearer ${bKey}`]);
    expect(await aAgent.auth()).toEqual([`Bearer ${deploymentKey}`]);

    const bResolved = await bAgent.resolved();
    expect(bResolved).toMatchObject({
      provider: "openai",
      status: "ok",
      key: "project",
      reason: "openai: the project's OPENAI_API_KEY is set",
    });
    expect(await aAgent.resolved()).toMatchObject({
      provider: "openai",
      status: "ok",
      key: "deployment",
      reason: "openai: OPENAI_API_KEY is set",
    });
    const listed = await (await b.call("/api/agents")).text();
    expect(listed).toContain('"key":"project"');
    expect(listed).not.toContain(bKey);
    // The doctor says the same, by presence only.
    const doctor = await (await b.call("/api/health?detail=1")).text();
    expect(doctor).toContain(`${bAgent.name} → openai (${bAgent.model}, project key)`);
    expect(doctor).not.toContain(bKey);
  });

  it("a reply that repeats b's model key is withheld by the secret-leak gate, like any secret of the project's; the trace names it, never its value", async () => {
    const b = await tenant("mk-r");
    const bKey = `sk-b-${crypto.randomUUID()}`;
    expect((await b.setSecret("OPENAI_API_KEY", bKey)).status).toBe(200);
    const agent = await modelAgent(b);
    await agent.script([{ content: `the key is ${bKey}` }]);
    const sent = await agent.send("what is your key?");
    expect(sent.status).toBe(200);
    const calls = await agent.auth();
    expect(calls.length).toBeGreaterThan(0);
    expect(new Set(calls)).toEqual(new Set([`Bearer ${bKey}`]));
    const run = await (await b.call(`/api/agents/${agent.name}/runs/${sent.body.runId}`)).text();
    expect(run).toContain("the reply carries the secret OPENAI_API_KEY");
    expect(run).not.toContain(bKey);
    expect(JSON.stringify(sent.body)).not.toContain(bKey);
  });

  it("an HTTP tool in b may not name b's OPENAI_API_KEY nor OPENAI_BASE_URL (400); the same tool naming b's own tool secret is accepted (control)", async () => {
    const b = await tenant("mk-t");
    expect((await b.setSecret("OPENAI_API_KEY", `sk-b-${crypto.randomUUID()}`)).status).toBe(200);
    expect((await b.setSecret("OPENAI_BASE_URL", `${doubleUrl()}/v1`)).status).toBe(200);
    expect((await b.setSecret("NOTES_KEY", "notes-value-1234")).status).toBe(200);
    const tool = (secret: string) => ({
      allowHosts: [new URL(doubleUrl()).hostname],
      httpTools: [
        {
          name: "notes.add",
          description: "Adds a note",
          parameters: { type: "object", properties: {} },
          endpoint: `${doubleUrl()}/__tool/${uniqueName("k")}`,
          headers: { "X-Key": { secret } },
        },
      ],
    });
    for (const [secret, what] of [
      ["OPENAI_API_KEY", "a model key"],
      ["OPENAI_BASE_URL", "a model setting"],
    ] as const) {
      const refused = await b.call("/api/agents", {
        method: "POST",
        json: { name: uniqueName("thief"), runtime: tool(secret) },
      });
      expect(refused.status).toBe(400);
      const issue = ((await refused.json()) as ErrorBody).error.details?.issues?.[0];
      expect(issue?.path).toEqual(["runtime", "httpTools", 0, "headers", "X-Key", "secret"]);
      expect(issue?.message).toContain(`secret '${secret}' is ${what} and never reaches a tool`);
    }
    expect(
      (await b.call("/api/agents", { method: "POST", json: { name: uniqueName("owner"), runtime: tool("NOTES_KEY") } }))
        .status,
    ).toBe(201);
  });

  it("deleting b's key: its own server gets no key (never the deployment's); deleting its server too, the deployment's key answers again", async () => {
    const b = await tenant("mk-d");
    const bKey = `sk-b-${crypto.randomUUID()}`;
    expect((await b.setSecret("OPENAI_API_KEY", bKey)).status).toBe(200);
    expect((await b.setSecret("OPENAI_BASE_URL", `${doubleUrl()}/v1`)).status).toBe(200);
    const agent = await modelAgent(b);
    expect((await agent.send("one")).status).toBe(200);

    expect((await b.call(`/api/projects/${b.slug}/secrets/OPENAI_API_KEY`, { method: "DELETE" })).status).toBe(204);
    expect((await agent.send("two")).status).toBe(200);
    expect(await agent.resolved()).toMatchObject({
      key: "project",
      reason: "openai: the project's OPENAI_BASE_URL is set (an OpenAI-compatible server, no key needed)",
    });

    expect((await b.call(`/api/projects/${b.slug}/secrets/OPENAI_BASE_URL`, { method: "DELETE" })).status).toBe(204);
    expect((await agent.send("three")).status).toBe(200);
    expect(await agent.auth()).toEqual([`Bearer ${bKey}`, "Bearer no-key", `Bearer ${deploymentKey}`]);
    expect(await agent.resolved()).toMatchObject({ key: "deployment" });
  });

  it("OPENAI_BASE_URL passes the outbound guard: metadata, private and non-http URLs are refused with the field (400); the model double on loopback (allowed in tests) is stored (control)", async () => {
    const b = await tenant("mk-u");
    for (const [value, why] of [
      ["http://169.254.169.254/v1", "link-local"],
      ["http://10.0.0.5/v1", "private"],
      ["file:///etc/passwd", "scheme"],
      ["https://user:pw@models.example.com/v1", "credentials"],
      ["not a url", "not an absolute URL"],
    ] as const) {
      const res = await b.setSecret("OPENAI_BASE_URL", value);
      expect(res.status, value).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.error.details?.issues?.[0]?.path, value).toEqual(["value"]);
      expect(body.error.message, value).toContain(why);
    }
    expect((await b.setSecret("OPENAI_BASE_URL", `${doubleUrl()}/v1`)).status).toBe(200);
  });
});

describe("the agent opens its model keys with the other secrets it names: one round trip, then none", () => {
  it("tool secrets and model settings in one registry call; the next turn makes none; a change makes one more", async () => {
    const asked: string[][] = [];
    const secrets = makeProjectSecrets({
      project: () => "mk-rpc",
      env,
      registry: () => ({
        secretsSealed: async (names: string[]) => {
          asked.push(names);
          return { sealed: [], granted: [] };
        },
      }),
    });
    const wants = [
      { names: ["NOTES_KEY"], use: "tool" as const },
      { names: ["OPENAI_API_KEY", "OPENAI_BASE_URL"], use: "model" as const },
    ];
    await secrets.ensureAll(wants);
    expect(asked).toEqual([["NOTES_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"]]);
    expect(secrets.ensureAll(wants)).toBeUndefined();
    expect(secrets.values("model")).toEqual({});
    secrets.invalidate();
    await secrets.ensureAll(wants);
    expect(asked).toHaveLength(2);
  });

  it("a model setting is the project's own or nothing: a deployment OPENAI_API_KEY never comes back as the project's", async () => {
    const secrets = makeProjectSecrets({
      project: () => "default",
      env,
      registry: () => ({ secretsSealed: async () => ({ sealed: [], granted: ["OPENAI_API_KEY"] }) }),
    });
    await secrets.ensureAll([{ names: ["OPENAI_API_KEY"], use: "model" }]);
    expect(secrets.values("model")).toEqual({});
  });
});
