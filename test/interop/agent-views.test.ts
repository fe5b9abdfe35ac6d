import { afterEach, describe, expect, it } from "vitest";
import { declaredFields, fieldValue, runtimeFields } from "../../core/agents/definition";
import { agentShowRows, cliShownFields, type ShownAgent } from "../../core/agents/views";
import { api, createAgent, uniqueName } from "../api/client";

/** The texts a field's value reads as in a row: text itself, each item of a list, a script by its actor's name. */
function textsOf(path: string, value: unknown): string[] {
  if (value === undefined || value === null || value === "") return [];
  if (Array.isArray(value)) return value.map(String);
  if (path === "script") return [(value as { name: string }).name];
  return [typeof value === "string" ? value : JSON.stringify(value)];
}

/** The declared `agents show` fields whose value is not in the row the declaration gives them. */
function missingFrom(rows: Array<[string, string]>, agent: ShownAgent): string[] {
  return cliShownFields().flatMap(({ path, label }) => {
    const row = rows.find(([l]) => l === label)?.[1];
    const texts = textsOf(path, fieldValue(agent as never, path));
    return row !== undefined && texts.every((t) => row.includes(t)) ? [] : [path];
  });
}

/** An agent with every field `agents show` shows set, as the API answers it. */
async function wholeAgent(): Promise<ShownAgent> {
  const peer = await createAgent();
  const name = uniqueName("shown");
  const script = `(actor "${name}"
  (role "archivist")
  (description "Keeps the archive in order.")
  (model :provider "offline" :name "offline")
  (goals "Index every new box" "Label the shelves")
  (tools "clock.now"))`;
  const put = await api(`/api/agents/${name}/script`, {
    method: "PUT",
    body: script,
    headers: { "content-type": "text/x-pantheon" },
  });
  expect(put.status, await put.clone().text()).toBe(201);
  const connected = await api(`/api/agents/${name}/connections`, {
    method: "PUT",
    json: { connections: [peer.name] },
  });
  expect(connected.status).toBe(200);
  return (await (await api(`/api/agents/${name}`)).json()) as ShownAgent;
}

describe("pantheon agents show, from the declaration (core/agents/views.ts)", () => {
  const denyViews = runtimeFields.denyTools.views;
  afterEach(() => {
    runtimeFields.denyTools.views = denyViews;
  });

  it("prints every field the declaration says it shows, each with the agent's value in its row", async () => {
    const agent = await wholeAgent();
    const rows = agentShowRows(agent);
    const declared = declaredFields().filter(([, d]) => d.views.cliShow === "shows");
    expect(cliShownFields().map((f) => f.path)).toEqual(declared.map(([path]) => path));
    // Every declared field has a value here, so each one is checked.
    for (const [path] of declared) expect(textsOf(path, fieldValue(agent as never, path)), path).not.toEqual([]);
    expect(missingFrom(rows, agent)).toEqual([]);
    expect(rows.find(([label]) => label === "goals")?.[1]).toBe("- Index every new box\n- Label the shelves");
    // The control: a table that left out a row, or printed another field's value in it, is caught.
    expect(
      missingFrom(
        rows.filter(([label]) => label !== "role"),
        agent,
      ),
    ).toEqual(["role"]);
    expect(
      missingFrom(
        rows.map(([label, text]) => [label, label === "goals" ? "-" : text]),
        agent,
      ),
    ).toEqual(["goals"]);
  });

  it("a field newly declared as shown gets a row without a change to the CLI", async () => {
    const agent = { ...(await wholeAgent()) };
    agent.runtime = { ...(agent.runtime as object), denyTools: ["memory.*"] };
    expect(agentShowRows(agent).some(([, text]) => text.includes("memory.*"))).toBe(false);
    runtimeFields.denyTools.views = { ...denyViews, cliShow: "shows" };
    const rows = agentShowRows(agent);
    expect(rows).toContainEqual([runtimeFields.denyTools.what, "memory.*"]);
    expect(missingFrom(rows, agent)).toEqual([]);
  });
});
