import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName } from "../api/client";

const csvStats = `// Column statistics of a CSV text, computed without the model.
export const tool = {
  name: "csv.stats",
  description: "Count, sum and maximum of one numeric column of a CSV text",
  input: {
    type: "object",
    properties: { csv: { type: "string" }, column: { type: "string" } },
    required: ["csv", "column"],
  },
};

export default async function (input: { csv: string; column: string }) {
  const [head, ...rows] = input.csv.trim().split("\\n");
  const at = head.split(",").indexOf(input.column);
  if (at < 0) throw new Error(\`no column '\${input.column}'\`);
  const values: number[] = rows.map((row) => Number(row.split(",")[at]));
  return { count: values.length, sum: values.reduce((a, b) => a + b, 0), max: Math.max(...values) };
}
`;

async function addTool(source: string, project = "default") {
  return api(`/api/projects/${project}/tools`, { method: "POST", json: { source } });
}

const invoke = (agent: string, tool: string, args: Record<string, unknown>) =>
  api(`/api/agents/${agent}/tools/${tool}/invoke`, { method: "POST", json: { arguments: args } });

describe("script tools", () => {
  it("are stored per project with their declaration and a version counted up when the source changes", async () => {
    const first = await addTool(csvStats);
    expect(first.status).toBe(201);
    const { tool } = (await first.json()) as { tool: { name: string; version: number; input: unknown } };
    expect(tool).toMatchObject({
      name: "csv.stats",
      description: expect.stringContaining("CSV"),
      hosts: [],
      secrets: [],
    });
    const same = (await (await addTool(csvStats)).json()) as { tool: { version: number } };
    expect(same.tool.version).toBe(tool.version);
    const changed = `${csvStats}// changed\n`;
    const again = (await (await addTool(changed)).json()) as { tool: { version: number } };
    expect(again.tool.version).toBe(tool.version + 1);
    const shown = (await (await api("/api/projects/default/tools/csv.stats")).json()) as { tool: { source: string } };
    expect(shown.tool.source).toBe(changed);
  });

  it("refuses a file that does not compile with a 400 naming the line; a good one beside it is stored", async () => {
    const bad = await addTool(
      `export const tool = { name: "bad.one", description: "x" };\nexport default async function (input) {\n  return input.;\n}\n`,
    );
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/^line 3: /);
    const undeclared = await addTool(`export default async function () { return 1; }\n`);
    expect(undeclared.status).toBe(400);
    expect(((await undeclared.json()) as { error: { message: string } }).error.message).toMatch(/export const tool/);
    expect(
      (await addTool(`export const tool = { name: "good.one", description: "x" };\nexport default async () => 1;\n`))
        .status,
    ).toBe(201);
  });

  it("are used by an agent that lists them, as a traced call of runtime 'script', and not by one that does not", async () => {
    await addTool(csvStats);
    const user = uniqueName("csv");
    await createAgent({ name: user, runtime: { tools: ["clock.now", "csv.stats"] } });
    const listed = (await (await api(`/api/agents/${user}/tools`)).json()) as {
      tools: { name: string; runtime?: string }[];
    };
    expect(listed.tools.find((t) => t.name === "csv.stats")).toMatchObject({ runtime: "script" });
    const res = await invoke(user, "csv.stats", { csv: "name,size\na,3\nb,40\nc,7", column: "size" });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain(
      JSON.stringify(JSON.stringify({ count: 3, sum: 50, max: 40 })).slice(1, -1),
    );
    const other = uniqueName("plain");
    await createAgent({ name: other, runtime: { tools: ["clock.now"] } });
    expect((await invoke(other, "csv.stats", { csv: "a\n1", column: "a" })).status).toBe(404);
  });

  it("give a script's error back as the tool's error with its message and line, not a 500", async () => {
    await addTool(csvStats);
    const user = uniqueName("csv");
    await createAgent({ name: user, runtime: { tools: ["csv.stats"] } });
    const res = await invoke(user, "csv.stats", { csv: "name,size\na,3", column: "weight" });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain("Error: no column 'weight' (line 15)");
  });

  it("pass the agent's approval gate like a built-in: a listed approval makes the call wait", async () => {
    await addTool(csvStats);
    const user = uniqueName("csv");
    await createAgent({ name: user, runtime: { tools: ["csv.stats"], approvalRequired: ["csv.stats"] } });
    const res = await invoke(user, "csv.stats", { csv: "a\n1", column: "a" });
    expect(res.status).toBe(202);
  });

  it("call the agent's tools they declare; one that needs more than the chat scope is refused inside a script", async () => {
    const caller = (name: string, tool: string) =>
      `export const tool = { name: "${name}", description: "calls ${tool}", tools: ["${tool}"] };\nexport default async (input: unknown, ctx: any) => await ctx.tool("${tool}", { query: "x" });\n`;
    await addTool(
      `export const tool = { name: "asks.clock", description: "the time", tools: ["clock.now"] };\nexport default async (input: unknown, ctx: any) => "it is " + (await ctx.tool("clock.now", {}));\n`,
    );
    await addTool(caller("asks.memory", "memory.search"));
    const user = uniqueName("caller");
    await createAgent({ name: user, runtime: { tools: ["clock.now", "memory.search", "asks.clock", "asks.memory"] } });
    const clock = JSON.stringify(await (await invoke(user, "asks.clock", {})).json());
    expect(clock).toMatch(/it is {.*iso.*\d{4}-\d\d-\d\dT/);
    const memory = JSON.stringify(await (await invoke(user, "asks.memory", {})).json());
    expect(memory).toContain("tool 'memory.search' needs the 'admin' scope");
  });

  it("refuse a secret the project lacks, Pantheon's own or a model key; one the project has is saved", async () => {
    const reading = (name: string, secret: string) =>
      `export const tool = { name: "${name}", description: "reads a secret", secrets: ["${secret}"] };\nexport default async (input: unknown, ctx: any) => (await ctx.secret("${secret}")).length;\n`;
    for (const secret of ["NO_SUCH_SECRET", "PANTHEON_ADMIN_TOKEN", "OPENAI_API_KEY"]) {
      const res = await addTool(reading("reads.bad", secret));
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(`tool.secrets[0]`);
    }
    await api("/api/projects/default/secrets/SCRIPT_KEY", { method: "PUT", json: { value: "script-key-value" } });
    expect((await addTool(reading("reads.good", "SCRIPT_KEY"))).status).toBe(201);
    const user = uniqueName("reader");
    await createAgent({ name: user, runtime: { tools: ["reads.good"] } });
    expect(JSON.stringify(await (await invoke(user, "reads.good", {})).json())).toContain('"output":"16"');
  });

  it("keep a secret their agents read from becoming a provider's key; another secret may be", async () => {
    await api("/api/projects/default/secrets/READ_BY_SCRIPT", { method: "PUT", json: { value: "read-by-script" } });
    await api("/api/projects/default/secrets/FREE_KEY", { method: "PUT", json: { value: "free-key-value" } });
    await addTool(
      `export const tool = { name: "reads.key", description: "reads a secret", secrets: ["READ_BY_SCRIPT"] };\nexport default async () => 1;\n`,
    );
    await createAgent({ name: uniqueName("keyreader"), runtime: { tools: ["reads.key"] } });
    const provider = (keySecret: string) =>
      api(`/api/projects/default/providers/${uniqueName("prov")}`, {
        method: "PUT",
        json: { baseUrl: "https://models.example.com/v1", keySecret },
      });
    expect((await provider("READ_BY_SCRIPT")).status).toBe(409);
    expect((await provider("FREE_KEY")).status).toBe(200);
  });

  it("may not be deleted while an agent lists it; one no agent lists is", async () => {
    await addTool(`export const tool = { name: "kept.one", description: "x" };\nexport default async () => 1;\n`);
    const user = uniqueName("keeper");
    await createAgent({ name: user, runtime: { tools: ["kept.one"] } });
    expect((await api("/api/projects/default/tools/kept.one", { method: "DELETE" })).status).toBe(409);
    await addTool(`export const tool = { name: "loose.one", description: "x" };\nexport default async () => 1;\n`);
    expect((await api("/api/projects/default/tools/loose.one", { method: "DELETE" })).status).toBe(204);
  });
});
