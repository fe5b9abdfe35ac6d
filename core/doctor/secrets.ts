import { defaultModelFrom, secretFix } from "../models";
import { deployFix, type DoctorCheck, type DoctorFacts } from "./facts";

// The doctor's secret checks: presence only, never a value.

/** The admin token and the model keys. */
export function keyChecks(facts: DoctorFacts): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const prod = facts.deployment === "production";
  const add = (check: DoctorCheck) => checks.push(check);
  add(
    facts.secrets.PANTHEON_ADMIN_TOKEN
      ? { id: "secret:PANTHEON_ADMIN_TOKEN", area: "secrets", status: "ok", message: "PANTHEON_ADMIN_TOKEN is set" }
      : {
          id: "secret:PANTHEON_ADMIN_TOKEN",
          area: "secrets",
          status: prod ? "problem" : "warn",
          message: "PANTHEON_ADMIN_TOKEN is not set: only API tokens open the API",
          fix: secretFix("PANTHEON_ADMIN_TOKEN", facts.deployment),
        },
  );
  const defaultModel = defaultModelFrom(facts.defaultProvider);
  for (const [secret, provider] of [
    ["OPENAI_API_KEY", "openai"],
    ["ANTHROPIC_API_KEY", "anthropic"],
  ] as const) {
    const users = facts.agents
      .filter((a) => a.model.provider === provider || a.model.fallback?.provider === provider)
      .map((a) => a.name);
    const byDefault = defaultModel.provider === provider;
    const present = facts.secrets[secret] || (provider === "openai" && facts.providers.openaiBaseUrl);
    const needed = users.length > 0 || byDefault;
    const who = [
      ...(users.length ? [`agents ${users.join(", ")}`] : []),
      ...(byDefault ? ["new agents (PANTHEON_DEFAULT_PROVIDER)"] : []),
    ].join(" and ");
    add(
      present
        ? {
            id: `secret:${secret}`,
            area: "secrets",
            status: "ok",
            message: facts.secrets[secret]
              ? `${secret} is set`
              : `${secret} is not set; OPENAI_BASE_URL points at an OpenAI-compatible server`,
          }
        : !needed
          ? {
              id: `secret:${secret}`,
              area: "secrets",
              status: "ok",
              message: `${secret} is not set (no agent uses ${provider})`,
            }
          : {
              id: `secret:${secret}`,
              area: "secrets",
              status: prod ? "problem" : "warn",
              message: `${secret} is not set but ${who} use ${provider}${prod ? ": their runs fail" : ": locally they get the offline stand-in"}`,
              fix: secretFix(secret, facts.deployment),
            },
    );
  }
  return checks;
}

/** The secrets tools send: PANTHEON_TOOL_SECRETS (project default), the project's own and the granted ones. */
export function toolSecretChecks(facts: DoctorFacts): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const prod = facts.deployment === "production";
  const add = (check: DoctorCheck) => checks.push(check);
  const ps = facts.projectSecrets;
  const implicit = ps.project === "default" ? facts.toolSecrets : [];
  for (const secret of implicit) {
    add(
      facts.secrets[secret]
        ? {
            id: `tool-secret:${secret}`,
            area: "tool-secrets",
            status: "ok",
            message: `${secret} (declared in PANTHEON_TOOL_SECRETS) is set`,
          }
        : {
            id: `tool-secret:${secret}`,
            area: "tool-secrets",
            status: "problem",
            message: `${secret} is declared in PANTHEON_TOOL_SECRETS but not set: tools that use it fail`,
            fix: secretFix(secret, facts.deployment),
          },
    );
  }
  if (!ps.keySet) {
    add({
      id: "secret:PANTHEON_SECRETS_KEY",
      area: "secrets",
      status: ps.own.length ? "problem" : "warn",
      message: ps.own.length
        ? `PANTHEON_SECRETS_KEY is not set: the ${ps.own.length} secret(s) of project ${ps.project} cannot be opened, and tools that use them fail`
        : "PANTHEON_SECRETS_KEY is not set: projects cannot keep secrets of their own",
      fix: secretFix("PANTHEON_SECRETS_KEY", facts.deployment),
    });
  }
  for (const name of ps.own)
    add({
      id: `project-secret:${name}`,
      area: "tool-secrets",
      status: "ok",
      message: `${name} is a secret of project ${ps.project}`,
    });
  for (const grant of ps.granted) {
    add(
      grant.present
        ? {
            id: `project-secret:${grant.name}`,
            area: "tool-secrets",
            status: "ok",
            message: `${grant.name} (a deployment secret granted to project ${ps.project}) is set`,
          }
        : {
            id: `project-secret:${grant.name}`,
            area: "tool-secrets",
            status: "problem",
            message: `${grant.name} is granted to project ${ps.project} but the deployment does not set it: tools that use it fail`,
            fix: secretFix(grant.name, facts.deployment),
          },
    );
  }
  const available = new Set([...implicit, ...ps.own, ...ps.granted.map((g) => g.name)]);
  for (const agent of facts.agents) {
    for (const secret of new Set(agent.toolSecretRefs)) {
      if (!available.has(secret)) {
        const orDeclare =
          ps.project === "default"
            ? `, or add ${secret} to PANTHEON_TOOL_SECRETS in wrangler.toml, then ${prod ? deployFix : "restart npm start"}`
            : "";
        add({
          id: `tool-secret:${agent.name}:${secret}`,
          area: "tool-secrets",
          status: "problem",
          message: `${agent.name} sends ${secret} in a header, which is not a secret of project ${ps.project}: the call is refused`,
          fix: `pantheon secrets set ${secret} --project ${ps.project}${orDeclare}`,
        });
      }
    }
  }
  return checks;
}
