import { describe, expect, it } from "vitest";
import { compileScript, printScript } from "../../core/dsl";
import { api, uniqueName } from "../api/client";
import { preview, say, setScript } from "./helpers";

const combination = "The vault combination is 31-47-09.";

async function addDoc(agent: string, source: string, text: string) {
  const res = await api(`/api/agents/${agent}/sources/${source}/documents`, {
    method: "POST",
    json: { title: "Vault", text },
  });
  if (res.status !== 201) throw new Error(`add document failed: ${res.status} ${await res.text()}`);
}

type Step = { kind: string; name: string; data: Record<string, unknown> };

/** The trace of the agent's newest run (its record is written just after the reply: waited for). */
async function lastTrace(agent: string): Promise<Step[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const runs = (await (await api(`/api/agents/${agent}/runs?limit=1`)).json()) as {
      runs: { id: string; finishedAt?: number }[];
    };
    const last = runs.runs[0];
    if (last?.finishedAt)
      return ((await (await api(`/api/agents/${agent}/runs/${last.id}`)).json()) as { trace: Step[] }).trace;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`agent '${agent}' has no finished run`);
}

const refusals = (trace: Step[]) =>
  trace.filter((s) => s.name === "source_refused").map((s) => s.data as { source: string; reason: string });
const toolResults = (trace: Step[]) => trace.filter((s) => s.name === "tool_result").map((s) => JSON.stringify(s.data));

/** Owner `a` with a `vault` source granted as `grants` says; `b` connected to `a`, `c` not. */
async function world(grants: unknown[]) {
  const a = uniqueName("owner");
  await setScript(a, {
    contextSources: ["vault"],
    sourceDetails: { vault: { label: "Vault", description: "How to open the vault" } },
    grants,
  });
  await addDoc(a, "vault", combination);
  const b = uniqueName("friend");
  await setScript(b, { contextSources: [`${a}/vault`], connections: [a] });
  const c = uniqueName("stranger");
  await setScript(c, { contextSources: [`${a}/vault`] });
  return { a, b, c };
}

describe("grants per grantee", () => {
  it("a bare-string grant (the old form) reaches the owner's connections and no one else; the refusal is on the stranger's run", async () => {
    const { a, b, c } = await world(["vault"]);

    // Positive control: b is connected to a and reads the source in its context.
    const seen = await preview(b, "What is the vault combination?");
    expect(seen.items.find((i) => i.text.includes("31-47-09"))).toMatchObject({ source: `${a}/vault`, included: true });
    await say(b, "What is the vault combination?");
    expect(refusals(await lastTrace(b))).toEqual([]);

    // c lists the same source, is not connected, and gets nothing.
    const refused = await preview(c, "What is the vault combination?");
    expect(refused.items.some((i) => i.text.includes("31-47-09"))).toBe(false);
    const turn = await say(c, "What is the vault combination?");
    expect(JSON.stringify(turn)).not.toContain("31-47-09");
    const [refusal] = refusals(await lastTrace(c));
    expect(refusal?.source).toBe(`${a}/vault`);
    expect(refusal?.reason).toContain(`agent '${c}' is not connected with '${a}'`);
  });

  it("connection counts either direction: an agent the owner connects to reads the default grant", async () => {
    const reader = uniqueName("reader");
    await setScript(reader, {});
    const a = uniqueName("owner");
    await setScript(a, { contextSources: ["vault"], grants: ["vault"], connections: [reader] });
    await addDoc(a, "vault", combination);
    await setScript(reader, { contextSources: [`${a}/vault`] });
    const seen = await preview(reader, "What is the vault combination?");
    expect(seen.items.some((i) => i.included && i.text.includes("31-47-09"))).toBe(true);
  });

  it("a grant that names an agent lets that agent read it, and a connected agent it does not name may not", async () => {
    const c = uniqueName("named");
    await setScript(c, {});
    const { a, b } = await world([]);
    await setScript(a, { contextSources: ["vault"], grants: [{ source: "vault", to: [c] }] });
    await setScript(c, { contextSources: [`${a}/vault`] });

    const named = await preview(c, "What is the vault combination?");
    expect(named.items.some((i) => i.included && i.text.includes("31-47-09"))).toBe(true);

    const other = await preview(b, "What is the vault combination?");
    expect(other.items.some((i) => i.text.includes("31-47-09"))).toBe(false);
    await say(b, "What is the vault combination?");
    expect(refusals(await lastTrace(b))[0]?.reason).toContain(`agent '${b}' is not named by the grant`);
  });

  it("context.sources lists what an agent may use with label and description; context.search works within the grant and is refused outside it", async () => {
    const { a, b, c } = await world(["vault"]);
    await say(b, "/tool context.sources {}");
    expect(toolResults(await lastTrace(b)).join("\n")).toContain(
      `{\\"source\\":\\"${a}/vault\\",\\"label\\":\\"Vault\\",\\"description\\":\\"How to open the vault\\",\\"access\\":\\"read\\"}`,
    );
    await say(c, "/tool context.sources {}");
    expect(toolResults(await lastTrace(c)).join("\n")).toContain(`{\\"sources\\":[]}`);

    await say(b, `/tool context.search {"source":"${a}/vault","query":"vault combination"}`);
    expect(toolResults(await lastTrace(b)).join("\n")).toContain("31-47-09");
    await say(c, `/tool context.search {"source":"${a}/vault","query":"vault combination"}`);
    const refused = toolResults(await lastTrace(c)).join("\n");
    expect(refused).not.toContain("31-47-09");
    expect(refused).toContain(`is not connected with '${a}'`);
  });

  it("a search-only grant answers queries but does not list the source's items", async () => {
    const { a, b } = await world([{ source: "vault", access: "search" }]);
    await say(b, `/tool context.search {"source":"${a}/vault","query":"vault combination"}`);
    expect(toolResults(await lastTrace(b)).join("\n")).toContain("31-47-09");
    await say(b, `/tool context.search {"source":"${a}/vault"}`);
    const read = toolResults(await lastTrace(b)).join("\n");
    expect(read).not.toContain("31-47-09");
    expect(read).toContain("for search only");
  });

  it("context.search never reaches the agent's own memory (memory.search is the operator's)", async () => {
    const { a } = await world(["vault"]);
    await say(a, `/tool context.search {"source":"memory","query":"anything"}`);
    expect(toolResults(await lastTrace(a)).join("\n")).toContain("'memory' is not a source you may search here");
    await say(a, `/tool context.search {"source":"vault","query":"vault combination"}`);
    expect(toolResults(await lastTrace(a)).join("\n")).toContain("31-47-09");
  });

  it("refuses a grant of another agent's source and source details for a source not listed, naming the field", async () => {
    const a = uniqueName("owner");
    const bad = await api(`/api/agents/${a}/script`, {
      method: "PUT",
      json: { name: a, description: "x", talents: [], contextSources: ["other/vault"], grants: ["other/vault"] },
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("an agent grants only its own");
    const details = await api(`/api/agents/${a}/script`, {
      method: "PUT",
      json: {
        name: a,
        description: "x",
        talents: [],
        contextSources: ["vault"],
        sourceDetails: { docs: { label: "Docs" } },
      },
    });
    expect(details.status).toBe(400);
    expect(await details.text()).toContain("source details for 'docs'");
    const access = await api(`/api/agents/${a}/script`, {
      method: "PUT",
      json: {
        name: a,
        description: "x",
        talents: [],
        contextSources: ["vault"],
        grants: [{ source: "vault", access: "write" }],
      },
    });
    expect(access.status).toBe(400);
  });

  it("the DSL writes labels and grants, and prints them back to the same script", () => {
    const source = `(actor "owner" (description "Keeps the vault")
      (context (source "vault" :label "Vault" :description "How to open it") (source "docs"))
      (grants "docs" (grant "vault" :to ["reader"] :access "search")))`;
    const { script } = compileScript(source);
    expect(script.sourceDetails).toEqual({ vault: { label: "Vault", description: "How to open it" } });
    expect(script.grants).toEqual(["docs", { source: "vault", to: ["reader"], access: "search" }]);
    expect(compileScript(printScript(script)).script).toEqual(script);
  });
});
