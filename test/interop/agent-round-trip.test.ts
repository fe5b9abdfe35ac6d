import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { declaredFields, fieldValue, type AgentDoor } from "../../core/agents/definition";
import type { AgentProfile } from "../../core/agents";
import { contextToolNames } from "../../durable-objects/agent/memory/context-tools";
import { tenant } from "../secrets/helpers";

type Tenant = Awaited<ReturnType<typeof tenant>>;
const ndjson = { "content-type": "application/x-ndjson" };

// Arbitraries over the agent's declared fields: words, goals, model settings, limits, knobs,
// connections, and a script with a role, goals and a scheduled behavior.
const word = fc.constantFrom("tidy", "shelves", "archive", "weekly", "notes", "Lisbon", "report", "calm");
const sentence = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => `${w.join(" ")}.`);
const goals = fc.array(sentence, { maxLength: 3 });
const model = fc.record(
  {
    provider: fc.constant("offline"),
    name: fc.constant("offline"),
    temperature: fc.integer({ min: 0, max: 10 }).map((t) => t / 10),
    maxTokens: fc.integer({ min: 64, max: 4096 }),
    topP: fc.integer({ min: 1, max: 10 }).map((t) => t / 10),
    fallback: fc.constant({ provider: "offline", name: "offline" }),
  },
  { requiredKeys: ["provider", "name"] },
);
const runtime = fc.record(
  {
    tools: fc.subarray(["clock.now", "memory.search"]),
    limits: fc.record(
      { maxSteps: fc.integer({ min: 1, max: 20 }), maxRunMs: fc.integer({ min: 5_000, max: 120_000 }) },
      { requiredKeys: [] },
    ),
    denyTools: fc.subarray(["http.*", "memory.forget"]),
    memory: fc.constantFrom({ policy: "window" as const }, { policy: "summary" as const, ttlMs: 86_400_000 }),
    beyondScope: fc.constantFrom("wait" as const, "refuse" as const),
  },
  { requiredKeys: ["tools"] },
);
const script = fc.record({
  role: fc.option(word, { nil: undefined }),
  goals,
  every: fc.constantFrom("1h", "30m"),
  notify: fc.boolean(),
});
const agentArb = fc.record({
  description: sentence,
  systemPrompt: sentence,
  role: fc.option(word, { nil: undefined }),
  goals,
  model,
  runtime,
  connected: fc.boolean(),
  script: fc.option(script, { nil: undefined }),
});
type Arb = typeof agentArb extends fc.Arbitrary<infer T> ? T : never;

function scriptSource(name: string, a: Arb, s: NonNullable<Arb["script"]>): string {
  const str = JSON.stringify;
  return `(actor ${str(name)}
  ${s.role ? `(role ${str(s.role)})` : ""}
  (description ${str(a.description)})
  (model :provider "offline" :name "offline")
  ${s.goals.length ? `(goals ${s.goals.map((g) => str(g)).join(" ")})` : ""}
  (talent "upkeep"
    (behavior "tidy" :persistent
      (every ${str(s.every)})${s.notify ? " :notify" : ""}
      (goal (input) "Tidy up")
      (plan (input ctx) (think)))))`;
}

async function ok(res: Response, status = 200): Promise<unknown> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return text ? (JSON.parse(text) as unknown) : null;
}

/** Makes the generated agent in `t` and answers its profile as the API shows it. */
async function make(t: Tenant, name: string, a: Arb): Promise<AgentProfile> {
  const { script: s, connected, ...input } = a;
  await ok(await t.call("/api/agents", { method: "POST", json: { name, ...input } }), 201);
  if (s)
    await ok(
      await t.call(`/api/agents/${name}/script`, {
        method: "PUT",
        body: scriptSource(name, a, s),
        headers: { "content-type": "text/x-pantheon" },
      }),
      200,
    );
  if (connected)
    await ok(await t.call(`/api/agents/${name}/connections`, { method: "PUT", json: { connections: ["peer"] } }));
  return (await ok(await t.call(`/api/agents/${name}`))) as AgentProfile;
}

const valueAt = (p: AgentProfile, path: string): unknown => {
  const v = fieldValue(p, path);
  // An absent list or object and an empty one say the same.
  const empty = Array.isArray(v) ? v.length === 0 : v && typeof v === "object" && Object.keys(v).length === 0;
  return empty ? undefined : (v ?? undefined);
};

/**
 * The agent a door made holds every field the door carries, equal to the original's (its script
 * under its own name), and each field the door cannot hold that the original has is named in a warning.
 */
function expectCarried(
  door: AgentDoor,
  from: AgentProfile,
  to: AgentProfile,
  warnings: unknown[],
  offered: { from: string[]; to: string[] },
) {
  const named = new Set(
    (warnings as { part?: string; names?: string[] }[]).flatMap((w) => (w.part === "fields" ? (w.names ?? []) : [])),
  );
  const parts = new Set((warnings as { part?: string }[]).map((w) => w.part));
  for (const [path, declaration] of declaredFields()) {
    const carriage = declaration.doors[door];
    const before = valueAt(from, path);
    if (carriage === "carries" && path === "runtime.tools" && door !== "projectFile" && door !== "snapshot") {
      // A format lists the tools the agent may call (its built-ins' too) and the import declares them:
      // what it carries is that set, beside Pantheon's own wiring (ask_<agent>, the context tools).
      // A deny list the format cannot hold (named in a warning) leaves the copy more tools, never fewer.
      if (from.runtime.denyTools?.length) expect(offered.to).toEqual(expect.arrayContaining(offered.from));
      else expect(offered.to, `${door} carries the tools it may call`).toEqual(offered.from);
    } else if (carriage === "carries" && path === "model.maxTokens" && door === "anthropic" && before === undefined) {
      // The Messages API requires max_tokens: an agent without a limit goes out with 1024, and comes back with it.
      expect(valueAt(to, path)).toBe(1024);
    } else if (carriage === "carries") {
      // Under a new name the script is renamed, and a prompt its script derived is derived again under it.
      const derived =
        door === "snapshot" && from.script && typeof before === "string" && before.startsWith(`You are ${from.name}`);
      const wanted =
        path === "script" && before
          ? { ...(before as object), name: to.name }
          : path === "systemPrompt" && derived
            ? (before as string).replace(`You are ${from.name}`, `You are ${to.name}`)
            : before;
      expect(valueAt(to, path), `${door} carries ${path}`).toEqual(wanted);
    } else if (before !== undefined && path !== "script") {
      const said = carriage.part
        ? parts.has(carriage.part)
        : [...named].some((n) => n === path || n.startsWith(`${path}.`));
      expect(said, `${door} names ${path}`).toBe(true);
    }
  }
}

/** It answers a message and ticks (toward its goals; without any, the tick says so). */
async function expectItAnswers(t: Tenant, name: string, profile: AgentProfile) {
  const turn = (await ok(
    await t.call(`/api/agents/${name}/messages`, { method: "POST", json: { content: "hello?" } }),
  )) as { status: string };
  expect(turn.status).toBe("completed");
  const tick = await t.call(`/api/agents/${name}/tick`, { method: "POST", json: {} });
  expect(tick.status, await tick.clone().text()).toBe(profile.goals?.length ? 200 : 400);
}

describe("every door gives back the agent it took (fast-check over the declared fields)", () => {
  it("agent export → import (each format), snapshot → restore (own name, new name, another project), project export → import", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(agentArb, async (a) => {
        run++;
        const [src, other, fresh] = await Promise.all([tenant("rt-src"), tenant("rt-other"), tenant("rt-fresh")]);
        for (const t of [src, other])
          await ok(await t.call("/api/agents", { method: "POST", json: { name: "peer" } }), 201);
        const original = await make(src, "orig", a);
        const made: Array<[Tenant, string, AgentDoor, unknown[]]> = [];

        const snapshot = await (await src.call("/api/agents/orig/snapshot")).text();
        for (const [t, name] of [
          [other, "orig"],
          [src, "orig-copy"],
          [other, "orig-moved"],
        ] as const) {
          const report = (await ok(
            await t.call(`/api/agents/${name}/snapshot/restore`, { method: "POST", body: snapshot, headers: ndjson }),
            201,
          )) as { warnings: unknown[] };
          made.push([t, name, "snapshot", report.warnings]);
        }

        const file = (await ok(await src.call(`/api/projects/${src.slug}/export`))) as {
          agents: Record<string, unknown>;
        };
        const { "orig-copy": _, ...agents } = file.agents;
        const imported = (await ok(
          await fresh.call(`/api/projects/${fresh.slug}/import`, { method: "POST", json: { agents } }),
        )) as { warnings: unknown[] };
        made.push([fresh, "orig", "projectFile", imported.warnings]);

        for (const format of ["openai", "anthropic", "opencode"] as const) {
          const exported = (await ok(
            await src.call(`/api/agents/orig/export?format=${format}`, { headers: { accept: "application/json" } }),
          )) as { warnings: unknown[] };
          const name = `orig-${format}`;
          await ok(
            await other.call(`/api/agents/import?format=${format}`, {
              method: "POST",
              json: { name, config: exported },
            }),
            201,
          );
          made.push([other, name, format, exported.warnings]);
        }

        const offered = async (t: Tenant, name: string) =>
          (
            (await ok(await t.call(`/api/agents/${name}/tools`))) as { tools: { name: string; runtime: string }[] }
          ).tools
            .filter((tool) => tool.runtime !== "agent" && !contextToolNames.includes(tool.name))
            .map((tool) => tool.name)
            .sort();
        const offeredBefore = await offered(src, "orig");
        for (const [t, name, door, warnings] of made) {
          const copy = (await ok(await t.call(`/api/agents/${name}`))) as AgentProfile;
          expectCarried(door, original, copy, warnings, { from: offeredBefore, to: await offered(t, name) });
          await expectItAnswers(t, name, copy);
        }
      }),
      // Each run makes seven agents in three projects and sends each a message: a few runs cover the space.
      { numRuns: 4, seed: 39, endOnFailure: true },
    );
    expect(run).toBe(4);
  });
});
