import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName } from "./client";
import { scriptedAgent } from "../runs/scripted";

// The test deployment is local (PANTHEON_ENV = "local"), with OPENAI_API_KEY set (the scripted
// double) and no ANTHROPIC_API_KEY. The production side of the policy is tested as a pure function
// (test/models/resolve.test.ts) and end to end under wrangler dev (test/node/production-model.check.mjs).
describe("an agent's resolved model", () => {
  it("an agent created without a model gets the deployment's default, and its detail says why", async () => {
    const name = uniqueName();
    const created = await api("/api/agents", { method: "POST", json: { name } });
    expect(created.status).toBe(201);
    const detail = (await (await api(`/api/agents/${name}`)).json()) as any;
    expect(detail.model).toMatchObject({ provider: "offline", name: "offline" });
    expect(detail.resolvedModel).toMatchObject({
      requested: { provider: "offline", name: "offline" },
      provider: "offline",
      status: "ok",
      reason: "offline: the agent asks for the offline model (a deterministic stand-in, not a language model)",
    });
  });

  it("locally, a provider without its key stands in with the offline model, and the detail names the missing secret", async () => {
    const agent = await createAgent({ model: { provider: "anthropic", name: "claude-haiku-4-5" } });
    const detail = (await (await api(`/api/agents/${agent.name}`)).json()) as any;
    expect(detail.resolvedModel).toEqual({
      requested: { provider: "anthropic", name: "claude-haiku-4-5" },
      provider: "offline",
      name: "offline",
      status: "stand-in",
      reason: "no ANTHROPIC_API_KEY; offline stand-in (local only)",
      missing: {
        provider: "anthropic",
        secret: "ANTHROPIC_API_KEY",
        fix: "add ANTHROPIC_API_KEY=… to .dev.vars and restart npm start",
        message:
          "provider 'anthropic' needs the secret ANTHROPIC_API_KEY: add ANTHROPIC_API_KEY=… to .dev.vars and restart npm start",
      },
    });
    const listed = (await (await api("/api/agents")).json()) as any;
    expect(listed.agents.find((a: any) => a.name === agent.name).resolvedModel.status).toBe("stand-in");

    // The run's trace records the model that actually answered, with its provider.
    const sent = (await (
      await api(`/api/agents/${agent.name}/messages`, { method: "POST", json: { content: "hello" } })
    ).json()) as any;
    expect(sent.status).toBe("completed");
    const run = (await (await api(`/api/agents/${agent.name}/runs/${sent.runId}`)).json()) as any;
    expect(run.trace.find((s: any) => s.name === "model_result").data).toMatchObject({
      provider: "offline",
      model: "offline",
    });
  });

  it("a fallback with its key is shown, and a run answered by the provider records it", async () => {
    const agent = await scriptedAgent({}, {});
    await agent.script([{ content: "hi from the double" }]);
    const patched = await api(`/api/agents/${agent.name}`, {
      method: "PATCH",
      json: {
        model: { provider: "openai", name: agent.model, fallback: { provider: "anthropic", name: "claude-haiku-4-5" } },
      },
    });
    const detail = (await patched.json()) as any;
    expect(detail.resolvedModel).toMatchObject({
      provider: "openai",
      status: "ok",
      reason: "openai: OPENAI_API_KEY is set; its fallback anthropic is unavailable (no ANTHROPIC_API_KEY)",
      fallback: { provider: "anthropic", name: "claude-haiku-4-5", available: false },
    });
    const { body } = await agent.send("hello");
    expect(body.status).toBe("completed");
    const run = await agent.run(body.runId);
    expect(run.trace.find((s: any) => s.name === "model_result").data).toMatchObject({
      provider: "openai",
      model: agent.model,
    });
  });

  it("a malformed model on create is a 400 naming the field", async () => {
    const res = await api("/api/agents", { method: "POST", json: { name: uniqueName(), model: { provider: "" } } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.details.issues[0].path).toEqual(["model", "provider"]);
  });
});
