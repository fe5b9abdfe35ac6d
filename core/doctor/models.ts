import { defaultModelFrom, resolveModel, type ResolvedModel } from "../models";
import { deployFix, type DoctorCheck, type DoctorFacts } from "./facts";

/** What the default model and each agent's resolve to here (`resolvedAgents`), and whether it can answer. */
export function modelChecks(
  facts: DoctorFacts,
  resolvedAgents: readonly { name: string; resolvedModel: ResolvedModel }[],
): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const prod = facts.deployment === "production";
  const add = (check: DoctorCheck) => checks.push(check);
  const defaultModel = defaultModelFrom(facts.defaultProvider);
  const defaultResolved = resolveModel(defaultModel, facts.projectProviders ?? facts.providers, facts.deployment);
  add(
    prod && defaultModel.provider === "offline"
      ? {
          id: "model:default",
          area: "models",
          status: "warn",
          message: "PANTHEON_DEFAULT_PROVIDER is empty: agents created without a model get the offline stand-in",
          fix: 'set PANTHEON_DEFAULT_PROVIDER = "openai" (or anthropic, workers-ai; "provider:model" names the model) under [env.production.vars], then npm run deploy',
        }
      : defaultResolved.status === "unavailable"
        ? {
            id: "model:default",
            area: "models",
            status: "problem",
            message: `new agents get ${defaultModel.provider} (${defaultModel.name}), which cannot answer: ${defaultResolved.reason}`,
            fix: defaultResolved.missing?.fix ?? deployFix,
          }
        : {
            id: "model:default",
            area: "models",
            status: "ok",
            message: `agents created without a model get ${defaultModel.provider} (${defaultModel.name}): ${defaultResolved.reason}`,
          },
  );
  for (const { name, resolvedModel: r } of resolvedAgents) {
    const check: DoctorCheck = {
      id: `model:${name}`,
      area: "models",
      status: "ok",
      message: `${name} → ${r.provider} (${r.name}${r.key ? `, ${r.key} key` : ""}): ${r.reason}`,
    };
    if (r.status === "unavailable") Object.assign(check, { status: "problem", fix: r.missing?.fix });
    else if (r.status === "stand-in" || r.status === "fallback")
      Object.assign(check, { status: "warn", fix: r.missing?.fix });
    else if (prod && r.provider === "offline")
      Object.assign(check, {
        status: "warn",
        message: `${name} asks for the offline stand-in (no language model)`,
        fix: `PATCH /api/agents/${name} {"model":{"provider":"openai","name":"gpt-4o-mini"}}`,
      });
    add(check);
  }
  return checks;
}
