import { describe, expect, it } from "vitest";
import { uniqueName } from "../api/client";
import { doubleUrl } from "../runs/scripted";
import { tenant } from "../secrets/helpers";

const doubler = `export const tool = { name: "num.double", description: "twice a number", input: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } };
export default async (input: { n: number }) => input.n * 2;
`;
const tripler = doubler.replace("input.n * 2", "input.n * 3");
const ndjson = { "content-type": "application/x-ndjson" };

type Tenant = Awaited<ReturnType<typeof tenant>>;

/** An agent of `t` whose model is the scripted double, listing the project's num.double. */
async function doublingAgent(t: Tenant, source = doubler) {
  expect((await t.call(`/api/projects/${t.slug}/tools`, { method: "POST", json: { source } })).status).toBe(201);
  const model = uniqueName("model");
  const name = uniqueName("doubling");
  const made = await t.call("/api/agents", {
    method: "POST",
    json: { name, model: { provider: "openai", name: model }, runtime: { tools: ["num.double"] } },
  });
  expect(made.status).toBe(201);
  return { name, model };
}

/**
 * Asks `agent` of `t` while its model (the double) calls num.double with 21 and then answers:
 * the model's second call holds the tool's result, which is what the agent answers with.
 */
async function askToDouble(t: Tenant, agent: string, model: string) {
  await fetch(`${doubleUrl()}/__script/${model}`, {
    method: "POST",
    body: JSON.stringify([
      { toolCalls: [{ name: "num.double", arguments: { n: 21 } }] },
      { content: "Twice 21 is what the tool said." },
    ]),
  });
  const res = await t.call(`/api/agents/${agent}/messages`, { method: "POST", json: { content: "double 21" } });
  const body = (await res.json()) as { status: string; reply?: { content: string } };
  const calls = (await (await fetch(`${doubleUrl()}/__calls/${model}`)).json()) as {
    messages: { role: string; content: unknown }[];
  }[];
  const toolResult = calls
    .at(-1)
    ?.messages.filter((m) => m.role === "tool")
    .map((m) => String(m.content))
    .join(" ");
  return { status: body.status, reply: body.reply?.content, toolResult };
}

describe("script tools across export, import and snapshots", () => {
  it("an agent imported from a project file into another project calls its script tool and answers", async () => {
    const from = await tenant("st-from");
    const { name, model } = await doublingAgent(from);
    const file = await (await from.call(`/api/projects/${from.slug}/export`)).json();
    const to = await tenant("st-to");
    expect((await to.call(`/api/projects/${to.slug}/import`, { method: "POST", json: file })).status).toBe(200);
    const asked = await askToDouble(to, name, model);
    expect(asked).toMatchObject({ status: "completed", reply: "Twice 21 is what the tool said." });
    expect(asked.toolResult).toContain("42");
  });

  it("a snapshot carries the script tools its agent lists; restored elsewhere, the agent calls the tool and answers", async () => {
    const from = await tenant("st-snap");
    const { name, model } = await doublingAgent(from);
    const snapshot = await (await from.call(`/api/agents/${name}/snapshot`)).text();
    const header = JSON.parse(snapshot.slice(0, snapshot.indexOf("\n"))) as { scriptTools?: unknown };
    expect(header.scriptTools).toEqual({ "num.double": { source: doubler } });

    const to = await tenant("st-restore");
    const restored = await to.call(`/api/agents/${name}/snapshot/restore`, {
      method: "POST",
      headers: ndjson,
      body: snapshot,
    });
    expect(restored.status).toBe(201);
    expect(JSON.stringify(await restored.json())).not.toContain("num.double");
    const tools = (await (await to.call(`/api/projects/${to.slug}/tools`)).json()) as { tools: { name: string }[] };
    expect(tools.tools.map((t) => t.name)).toEqual(["num.double"]);
    const asked = await askToDouble(to, name, model);
    expect(asked).toMatchObject({ status: "completed", reply: "Twice 21 is what the tool said." });
    expect(asked.toolResult).toContain("42");
  });

  it("a restore is refused where a different tool of that name exists, naming it; where the same one exists it is kept", async () => {
    const from = await tenant("st-clash");
    const { name } = await doublingAgent(from);
    const snapshot = await (await from.call(`/api/agents/${name}/snapshot`)).text();

    const clash = await tenant("st-other");
    await clash.call(`/api/projects/${clash.slug}/tools`, { method: "POST", json: { source: tripler } });
    const refused = await clash.call(`/api/agents/${name}/snapshot/restore`, {
      method: "POST",
      headers: ndjson,
      body: snapshot,
    });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      `project '${clash.slug}' has a different script tool 'num.double' (version 1) than the one agent '${name}' lists: restore into another project, or remove or rename the project's tool first`,
    );
    // Nothing was made: no agent, and the project's own tool as it was.
    expect((await clash.call(`/api/agents/${name}`)).status).toBe(404);
    const kept = (await (await clash.call(`/api/projects/${clash.slug}/tools/num.double`)).json()) as {
      tool: { source: string; version: number };
    };
    expect(kept.tool).toMatchObject({ source: tripler, version: 1 });

    const same = await tenant("st-same");
    await same.call(`/api/projects/${same.slug}/tools`, { method: "POST", json: { source: doubler } });
    const ok = await same.call(`/api/agents/${name}/snapshot/restore`, {
      method: "POST",
      headers: ndjson,
      body: snapshot,
    });
    expect(ok.status).toBe(201);
    const listed = (await (await same.call(`/api/projects/${same.slug}/tools`)).json()) as {
      tools: { name: string; version: number }[];
    };
    expect(listed.tools).toMatchObject([{ name: "num.double", version: 1 }]);
  });
});

describe("a project file whose agent's script declares a (tool …)", () => {
  const file = (code: string) => ({
    agents: {
      counter: {
        tools: ["num.double"],
        pantheon: {
          script: `(actor "counter" (description "Counts.") (tool "num.double" :description "twice n" :source "${code}"))`,
        },
      },
    },
  });

  it("imports with the tool saved and run by its agent; a form that does not compile is refused at the script's path", async () => {
    const t = await tenant("st-dsl");
    const bad = await t.call(`/api/projects/${t.slug}/import`, {
      method: "POST",
      json: file("export default ("),
    });
    expect(bad.status).toBe(400);
    const refused = (await bad.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(refused.error.issues[0]).toMatchObject({
      path: "$.agents.counter.pantheon.script",
      message: expect.stringContaining('(tool "num.double") line 1: not valid TypeScript'),
    });
    const good = await t.call(`/api/projects/${t.slug}/import`, {
      method: "POST",
      json: file("export default async (input: { n: number }) => input.n * 2;"),
    });
    expect(good.status).toBe(200);
    const run = await t.call("/api/agents/counter/tools/num.double/invoke", {
      method: "POST",
      json: { arguments: { n: 4 } },
    });
    expect(JSON.stringify(await run.json())).toContain('"output":"8"');
  });
});
