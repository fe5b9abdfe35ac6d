import { describe, expect, it } from "vitest";
import { defaultModelFrom, deploymentOf, resolveModel, secretFix, type ProviderFacts } from "../../core/models";

const none: ProviderFacts = { openaiApiKey: false, openaiBaseUrl: false, anthropicApiKey: false, workersAi: false };
const openai = { provider: "openai", name: "gpt-4o-mini" };

describe("resolveModel: which model answers an agent, and why", () => {
  it("locally, a provider without its key is replaced by the offline stand-in and says so", () => {
    expect(resolveModel(openai, none, "local")).toEqual({
      requested: openai,
      provider: "offline",
      name: "offline",
      status: "stand-in",
      reason: "no OPENAI_API_KEY; offline stand-in (local only)",
      missing: {
        provider: "openai",
        secret: "OPENAI_API_KEY",
        fix: "add OPENAI_API_KEY=… to .dev.vars and restart npm start",
        message:
          "provider 'openai' needs the secret OPENAI_API_KEY: add OPENAI_API_KEY=… to .dev.vars and restart npm start",
      },
    });
  });

  it("in production, a provider without its key is unavailable, naming the secret and the command", () => {
    const resolved = resolveModel(openai, none, "production");
    expect(resolved).toMatchObject({
      provider: "openai",
      name: "gpt-4o-mini",
      status: "unavailable",
      reason:
        "provider 'openai' needs the secret OPENAI_API_KEY: npx wrangler secret put OPENAI_API_KEY --env production",
      missing: { secret: "OPENAI_API_KEY", fix: "npx wrangler secret put OPENAI_API_KEY --env production" },
    });
    expect(resolveModel({ provider: "anthropic", name: "claude-haiku-4-5" }, none, "production").reason).toBe(
      "provider 'anthropic' needs the secret ANTHROPIC_API_KEY: npx wrangler secret put ANTHROPIC_API_KEY --env production",
    );
  });

  it("in both, the key present means that provider answers", () => {
    for (const deployment of ["local", "production"] as const) {
      expect(resolveModel(openai, { ...none, openaiApiKey: true }, deployment)).toMatchObject({
        provider: "openai",
        status: "ok",
        reason: "openai: OPENAI_API_KEY is set",
      });
    }
  });

  it("a configured fallback with its key answers for a primary without one, in both", () => {
    const settings = { ...openai, fallback: { provider: "anthropic", name: "claude-haiku-4-5" } };
    for (const deployment of ["local", "production"] as const) {
      expect(resolveModel(settings, { ...none, anthropicApiKey: true }, deployment)).toMatchObject({
        provider: "anthropic",
        name: "claude-haiku-4-5",
        status: "fallback",
        reason: "no OPENAI_API_KEY; the fallback anthropic (claude-haiku-4-5) answers",
        fallback: { provider: "anthropic", available: true },
        missing: { secret: "OPENAI_API_KEY" },
      });
    }
  });

  it("reports a fallback that cannot answer behind a primary that can", () => {
    const settings = { ...openai, fallback: { provider: "anthropic", name: "claude-haiku-4-5" } };
    expect(resolveModel(settings, { ...none, openaiApiKey: true }, "production")).toMatchObject({
      status: "ok",
      reason: "openai: OPENAI_API_KEY is set; its fallback anthropic is unavailable (no ANTHROPIC_API_KEY)",
      fallback: { available: false },
    });
  });

  it("Workers AI needs its binding; an unknown provider names the known ones", () => {
    expect(resolveModel({ provider: "workers-ai", name: "@cf/x" }, none, "production")).toMatchObject({
      status: "unavailable",
      missing: { secret: "AI" },
    });
    expect(resolveModel({ provider: "mistral", name: "large" }, none, "production").reason).toBe(
      "provider 'mistral' is not known: set the agent's model.provider to one of openai, anthropic, workers-ai, offline",
    );
  });

  it("an agent that asks for the offline model gets it everywhere, and the reason says what it is", () => {
    expect(resolveModel({ provider: "offline", name: "offline" }, none, "production")).toMatchObject({
      status: "ok",
      provider: "offline",
    });
  });
});

describe("deployment helpers", () => {
  it("PANTHEON_ENV=production is production; anything else is local", () => {
    expect(deploymentOf("production")).toBe("production");
    expect(deploymentOf("local")).toBe("local");
    expect(deploymentOf(undefined)).toBe("local");
  });

  it("the fix for a missing secret fits the deployment", () => {
    expect(secretFix("ANTHROPIC_API_KEY", "production")).toBe(
      "npx wrangler secret put ANTHROPIC_API_KEY --env production",
    );
  });

  it("PANTHEON_DEFAULT_PROVIDER is a provider, or provider:model; empty is offline", () => {
    expect(defaultModelFrom("openai")).toEqual({ provider: "openai", name: "gpt-4o-mini" });
    expect(defaultModelFrom(" Anthropic:claude-sonnet-4-5 ")).toEqual({
      provider: "anthropic",
      name: "claude-sonnet-4-5",
    });
    expect(defaultModelFrom("")).toEqual({ provider: "offline", name: "offline" });
    expect(defaultModelFrom(undefined)).toEqual({ provider: "offline", name: "offline" });
    expect(defaultModelFrom("mistral")).toEqual({ provider: "mistral", name: "mistral" });
  });
});
