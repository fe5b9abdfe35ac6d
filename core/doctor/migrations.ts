import { deployFix, type DoctorCheck, type DoctorFacts } from "./facts";

/** Migrations in the journal that the database has not applied. */
export function missingMigrations(
  journal: readonly { when: number; tag: string }[],
  applied: readonly number[],
): string[] {
  const done = new Set(applied.map(Number));
  return journal.filter((entry) => !done.has(entry.when)).map((entry) => entry.tag);
}

/** The registry's and each agent's database against the bundled journals. */
export function migrationChecks(facts: DoctorFacts): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const add = (check: DoctorCheck) => checks.push(check);
  const migrationCheck = (
    id: string,
    what: string,
    journal: { when: number; tag: string }[],
    applied: number[] | { error: string },
  ): DoctorCheck => {
    if (!Array.isArray(applied))
      return {
        id,
        area: "migrations",
        status: "problem",
        message: `${what}: migrations could not be read (${applied.error})`,
        fix: deployFix,
      };
    const missing = missingMigrations(journal, applied);
    return missing.length
      ? {
          id,
          area: "migrations",
          status: "problem",
          message: `${what}: ${missing.length} of ${journal.length} migrations not applied (${missing.join(", ")})`,
          fix: `${deployFix} (bundled migrations are applied when each Durable Object starts)`,
        }
      : {
          id,
          area: "migrations",
          status: "ok",
          message: `${what}: all ${journal.length} migrations applied (last ${journal.at(-1)?.tag ?? "none"})`,
        };
  };
  add(
    migrationCheck("migrations:registry", "the project's registry", facts.journals.registry, facts.registryMigrations),
  );
  for (const agent of facts.agents)
    add(migrationCheck(`migrations:${agent.name}`, `agent ${agent.name}`, facts.journals.agent, agent.migrations));
  return checks;
}
