import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { agentInputSchema } from "../../core/agents";
import { agentStub, registryStub } from "../../durable-objects/stubs";
import exampleFile from "../../examples/agents.json";
import { tenant } from "../secrets/helpers";

type Tenant = Awaited<ReturnType<typeof tenant>>;
const ndjson = { "content-type": "application/x-ndjson" };

/**
 * What a person does with an agent they just made: shows it, sends it a message, ticks it. Each
 * answers — a reply, its profile with `goals` a list, and a tick that either runs or says why not.
 */
async function expectItAnswers(t: Tenant, agent: string) {
  const shown = await t.call(`/api/agents/${agent}`);
  expect(shown.status).toBe(200);
  const profile = (await shown.json()) as { goals: unknown; role: unknown };
  expect(Array.isArray(profile.goals)).toBe(true);
  const hasGoals = (profile.goals as string[]).length > 0;

  const sent = await t.call(`/api/agents/${agent}/messages`, { method: "POST", json: { content: "are you there?" } });
  expect(sent.status).toBe(200);
  const turn = (await sent.json()) as { status: string; error?: unknown; reply?: { role: string; content: string } };
  expect(turn.error).toBeUndefined();
  expect(turn.status).toBe("completed");
  expect(turn.reply?.role).toBe("assistant");

  // Without standing goals a tick is refused by name (never a 500); with goals set, it runs.
  if (!hasGoals) {
    const idle = await t.call(`/api/agents/${agent}/tick`, { method: "POST", json: {} });
    expect(idle.status).toBe(400);
    expect(((await idle.json()) as { error: { message: string } }).error.message).toContain("no standing goals");
    const goals = ["Say hello to the team"];
    expect((await t.call(`/api/agents/${agent}`, { method: "PATCH", json: { goals } })).status).toBe(200);
  }
  const ticked = await t.call(`/api/agents/${agent}/tick`, { method: "POST", json: {} });
  expect(ticked.status).toBe(200);
  expect(((await ticked.json()) as { status: string }).status).toBe("completed");
}

describe("agents made by an import or a restore answer", () => {
  it("every agent of examples/agents.json, imported, shows, answers a message and ticks", async () => {
    const t = await tenant("made-import");
    const imported = await t.call(`/api/projects/${t.slug}/import`, { method: "POST", json: exampleFile });
    expect(imported.status).toBe(200);
    for (const agent of Object.keys(exampleFile.agents)) await expectItAnswers(t, agent);
  });

  it("an agent restored from a snapshot under a new name answers, in its own project and another", async () => {
    const a = await tenant("made-snap-a");
    const b = await tenant("made-snap-b");
    expect((await a.call("/api/agents", { method: "POST", json: { name: "scout" } })).status).toBe(201);
    const snapshot = await (await a.call("/api/agents/scout/snapshot")).text();
    for (const [t, name] of [
      [a, "scout-copy"],
      [b, "scout"],
    ] as const) {
      const made = await t.call(`/api/agents/${name}/snapshot/restore`, {
        method: "POST",
        body: snapshot,
        headers: ndjson,
      });
      expect(made.status).toBe(201);
      await expectItAnswers(t, name);
    }
  });

  it("a snapshot of an agent with a script restores under a new name, here and in another project, its actor renamed", async () => {
    const a = await tenant("made-script-a");
    const b = await tenant("made-script-b");
    const source = `; keeps the shelves
(actor "keeper"
  (role "librarian")
  (description "Keeps the shelves in order.")
  (model :provider "offline" :name "offline")
  (goals "Shelve every returned book")
  (tools "clock.now")
  (talent "shelving"
    (behavior "tidy" :persistent
      (every "1h")
      (goal (input) "Tidy the shelves")
      (plan (input ctx) (think)))))`;
    const put = await a.call("/api/agents/keeper/script", {
      method: "PUT",
      body: source,
      headers: { "content-type": "text/x-pantheon" },
    });
    expect(put.status).toBe(201);
    const snapshot = await (await a.call("/api/agents/keeper/snapshot")).text();
    for (const [t, name] of [
      [a, "keeper2"],
      [b, "keeper"],
      [b, "keeper3"],
    ] as const) {
      const made = await t.call(`/api/agents/${name}/snapshot/restore`, {
        method: "POST",
        body: snapshot,
        headers: ndjson,
      });
      expect(made.status).toBe(201);
      const script = (await (await t.call(`/api/agents/${name}/script`)).json()) as {
        source: string;
        script: { name: string; talents: { name: string }[] };
      };
      // The DSL source and the compiled JSON both name the agent it now is; the rest is the original's.
      expect(script.source).toBe(source.replace('(actor "keeper"', `(actor "${name}"`));
      expect(script.script.name).toBe(name);
      expect(script.script.talents.map((x) => x.name)).toEqual(["shelving"]);
      const profile = (await (await t.call(`/api/agents/${name}`)).json()) as {
        systemPrompt: string;
        role: string;
        goals: string[];
      };
      expect(profile.systemPrompt).toBe(`You are ${name}, a librarian. Keeps the shelves in order.`);
      // Its role and standing goals came with it: the tick below works toward them.
      expect(profile).toMatchObject({ role: "librarian", goals: ["Shelve every returned book"] });
      await expectItAnswers(t, name);
    }
  });

  it("an agent imported from another system's format answers", async () => {
    const t = await tenant("made-format");
    const made = await t.call("/api/agents/import?format=openai", {
      method: "POST",
      json: { name: "helper", config: { instructions: "Be brief.", model: "offline/offline", tools: [] } },
    });
    expect(made.status).toBe(201);
    await expectItAnswers(t, "helper");
  });
});

describe("an agent whose profile never reached its object", () => {
  it("answers when the registry holds it but the push was cut off, and a deleted one is not brought back", async () => {
    const t = await tenant("made-unpushed");
    // What an import cut off by a restart leaves: the registry's row written, the object never configured.
    const made = await registryStub(env, t.slug).createAgent(
      agentInputSchema.parse({ name: "orphan", description: "never pushed" }),
    );
    expect(made.ok).toBe(true);
    await expectItAnswers(t, "orphan");

    // Control: a deletion cut off between the object's wipe and the registry's delete does not resurrect it.
    expect((await t.call("/api/agents", { method: "POST", json: { name: "gone" } })).status).toBe(201);
    await agentStub(env, t.slug, "gone").forget();
    const sent = await t.call("/api/agents/gone/messages", { method: "POST", json: { content: "still there?" } });
    expect(sent.status).toBe(404);
    expect(((await sent.json()) as { error: { message: string } }).error.message).toBe(
      `agent 'gone' does not exist in project '${t.slug}'`,
    );
  });
});
