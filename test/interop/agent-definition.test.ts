import { getTableColumns } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  agentDoors,
  declaredFields,
  fieldValue,
  modelFields,
  profileFields,
  recordFields,
  runtimeFields,
} from "../../core/agents/definition";
import { agentInputSchema, agentRuntimeSchema } from "../../core/agents";
import { pantheonAgentFieldsSchema } from "../../core/projects/file";
import { modelSettingsSchema } from "../../core/run/limits";
import { agents } from "../../durable-objects/registry/schema";
import { api, createAgent, uniqueName } from "../api/client";

const sorted = (keys: Iterable<string>) => [...keys].sort();
const declaredTop = new Set([...Object.keys(profileFields), ...Object.keys(recordFields)]);

describe("one definition of an agent (core/agents/definition.ts)", () => {
  it("declares every field the schemas have, no more: the runtime's, the model's, what a create takes and what the registry stores", () => {
    expect(sorted(Object.keys(runtimeFields))).toEqual(sorted(Object.keys(agentRuntimeSchema.shape)));
    expect(sorted(Object.keys(modelFields))).toEqual(sorted(Object.keys(modelSettingsSchema.shape)));
    const undeclaredInput = Object.keys(agentInputSchema.shape).filter((k) => !declaredTop.has(k));
    expect(undeclaredInput).toEqual([]);
    // Every stored column is a declared field (the script's source travels with the script).
    const columns = Object.keys(getTableColumns(agents)).filter((k) => k !== "scriptSource");
    expect(columns.filter((k) => !declaredTop.has(k))).toEqual([]);
    // A positive control: a field no schema has is caught by the same comparison.
    expect(sorted([...Object.keys(runtimeFields), "newKnob"]).filter((k) => !(k in agentRuntimeSchema.shape))).toEqual([
      "newKnob",
    ]);
  });

  it("every field has every door declared: carried, or warned with a reason; every record field says why no door carries it", () => {
    for (const [path, declaration] of declaredFields()) {
      for (const door of agentDoors) {
        const carriage = declaration.doors[door];
        expect(carriage, `${path} at ${door}`).toBeDefined();
        if (carriage !== "carries") expect(carriage.warns.length, `${path} at ${door}`).toBeGreaterThan(5);
      }
      expect(declaration.views.cliShow).toBeDefined();
      expect(declaration.views.pwaPage).toBeDefined();
    }
    for (const [field, why] of Object.entries(recordFields)) expect(why.length, field).toBeGreaterThan(10);
  });

  it("the project file (and so a snapshot) has a place for every field it is declared to carry", () => {
    const pantheonKeys = new Set(Object.keys(pantheonAgentFieldsSchema.shape));
    // Where each of the agent's fields sits in a project file entry.
    const placeOf: Record<string, string> = {
      description: "description",
      systemPrompt: "pantheon.instructions",
      role: "pantheon.role",
      goals: "pantheon.goals",
      script: "pantheon.script",
      connections: "connections",
      displayName: "name",
    };
    for (const [path, declaration] of declaredFields()) {
      if (declaration.doors.projectFile !== "carries") continue;
      const [head] = path.split(".") as [string];
      const place = head === "model" || head === "runtime" ? `pantheon.${head}` : placeOf[head];
      expect(place, path).toBeDefined();
      if (place!.startsWith("pantheon.")) expect(pantheonKeys.has(place!.slice("pantheon.".length)), path).toBe(true);
    }
  });

  it("each format's export names every field it cannot hold that the agent has, by path or by its part", async () => {
    const peer = await createAgent();
    const name = uniqueName("whole");
    const made = await api("/api/agents", {
      method: "POST",
      json: {
        name,
        description: "Has every field set.",
        role: "archivist",
        goals: ["Keep the archive tidy"],
        systemPrompt: "You keep the archive.",
        model: {
          provider: "openai",
          name: "gpt-4o-mini",
          temperature: 0.2,
          maxTokens: 500,
          topP: 0.9,
          fallback: { provider: "offline", name: "offline" },
          cascade: [{ provider: "offline", name: "offline" }],
          allowed: ["offline/offline"],
          breaker: { threshold: 3, cooldownMs: 1000 },
        },
        runtime: {
          tools: ["clock.now"],
          approvalRequired: ["clock.now"],
          allowHosts: ["example.com"],
          limits: { maxSteps: 4, maxRunMs: 30_000, tokensPerDay: 10_000 },
          gates: [{ name: "few", kind: "max-calls", max: 3 }],
          rateLimits: { "clock.now": { capacity: 2, refillPerSec: 1 } },
          beyondScope: "refuse",
          denyTools: ["memory.*"],
          memory: { policy: "window" },
        },
      },
    });
    expect(made.status, await made.clone().text()).toBe(201);
    expect(
      (await api(`/api/agents/${name}/connections`, { method: "PUT", json: { connections: [peer.name] } })).status,
    ).toBe(200);
    const profile = (await (await api(`/api/agents/${name}`)).json()) as Parameters<typeof fieldValue>[0];
    for (const format of ["openai", "anthropic", "opencode"] as const) {
      const res = await api(`/api/agents/${name}/export?format=${format}`, { headers: { accept: "application/json" } });
      expect(res.status).toBe(200);
      const { warnings } = (await res.json()) as { warnings: { part?: string; names?: string[]; path: string }[] };
      const named = new Set(warnings.flatMap((w) => (w.part === "fields" ? (w.names ?? []) : [])));
      const parts = new Set(warnings.map((w) => w.part));
      for (const [path, declaration] of declaredFields()) {
        const carriage = declaration.doors[format];
        const value = fieldValue(profile, path);
        const set = value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
        if (carriage === "carries" || !set) continue;
        if (carriage.part) {
          // The part's own warning names it when the agent has something of that part (a script's behaviors…).
          if (path !== "script") expect(parts.has(carriage.part), `${format}: ${path} as ${carriage.part}`).toBe(true);
          continue;
        }
        const names = [...named].filter((n) => n === path || n.startsWith(`${path}.`));
        expect(names.length, `${format}: ${path} is named in a warning`).toBeGreaterThan(0);
        for (const kept of carriage.except ?? []) expect(named.has(`${path}.${kept}`)).toBe(false);
      }
    }
  });
});
