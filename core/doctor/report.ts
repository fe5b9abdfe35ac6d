import { resolveModel } from "../models";
import { bindingChecks } from "./bindings";
import { cronCheck } from "./cron";
import type { DoctorCheck, DoctorFacts, DoctorReport } from "./facts";
import { gatewayChecks } from "./gateways";
import { mcpChecks } from "./mcp";
import { migrationChecks } from "./migrations";
import { modelChecks } from "./models";
import { quotaChecks } from "./quotas";
import { keyChecks, toolSecretChecks } from "./secrets";
import { pushChecks } from "./push";

/**
 * The doctor: what a deployment needs, checked from facts the worker observed (bindings and
 * secrets present or not — never their values — migrations applied, the last Cron Trigger tick).
 * Pure: the worker gathers the facts (workers/api/doctor.ts), this turns them into checks, each
 * problem with the exact command or edit that fixes it. Each section of checks has its module here.
 */
export type { AgentFacts, CheckStatus, DoctorCheck, DoctorFacts, DoctorReport } from "./facts";
export { missingMigrations } from "./migrations";

/**
 * Builds the report. `ok` is false when any check is a problem; warnings do not fail it.
 * @example
 * const report = buildDoctorReport(facts);
 * if (!report.ok) for (const c of report.checks.filter((c) => c.status === "problem")) console.log(c.message, c.fix);
 */
export function buildDoctorReport(facts: DoctorFacts): DoctorReport {
  const prod = facts.deployment === "production";
  const resolvedAgents = facts.agents.map((a) => ({
    name: a.name,
    resolvedModel: resolveModel(a.model, facts.projectProviders ?? facts.providers, facts.deployment),
  }));
  const checks: DoctorCheck[] = [
    ...bindingChecks(facts),
    ...keyChecks(facts),
    ...modelChecks(facts, resolvedAgents),
    ...toolSecretChecks(facts),
    ...migrationChecks(facts),
    cronCheck(facts),
    ...gatewayChecks(facts),
    ...mcpChecks(facts),
    ...pushChecks(facts),
    // Daily caps: spend today, per project and agent.
    ...(facts.quotas ? quotaChecks(facts.quotas, prod) : []),
  ];
  const summary = { ok: 0, warn: 0, problem: 0 };
  for (const check of checks) summary[check.status] += 1;
  return {
    ok: summary.problem === 0,
    deployment: facts.deployment,
    version: facts.version,
    checkedAt: facts.now,
    summary,
    checks,
    agents: resolvedAgents,
  };
}
