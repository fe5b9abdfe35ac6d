import { isPantheonError, PantheonError, type Result } from "../../core/errors";
import { loadOrder, maxProjectSkills, type SkillEntry, type SkillSummary, type StoredSkill } from "../../core/skills";

/** The registry's key-value storage (SQLite-backed): a record per skill, no schema needed. */
interface Kv {
  get<T>(key: string): T | undefined;
  put(key: string, value: unknown): void;
  delete(key: string): boolean;
  list<T>(options: { prefix: string }): Iterable<[string, T]>;
}

const prefix = "skill/";
const keyOf = (name: string) => `${prefix}${name}`;
const summaryOf = ({ name, description, requires }: StoredSkill): SkillSummary => ({ name, description, requires });

/**
 * A project's skill library (core/skills), kept in the registry's storage beside its agents and
 * script tools. An import is checked whole against the library it makes — every skill a skill
 * requires is there, no cycle — before any skill is written.
 */
export function makeSkillStore(kv: Kv, project: () => string) {
  const all = () => new Map([...kv.list<StoredSkill>({ prefix })].map(([, skill]) => [skill.name, skill]));
  return {
    get: (name: string) => kv.get<StoredSkill>(keyOf(name)),
    list: (): SkillSummary[] => [...all().values()].map(summaryOf).sort((a, b) => a.name.localeCompare(b.name)),
    /** Saves skills read from their folders (an existing one replaced); answers their names in load order each. */
    put(skills: Omit<StoredSkill, "updatedAt">[], now: number): Result<{ skills: SkillSummary[] }> {
      const library = all();
      for (const skill of skills) library.set(skill.name, { ...skill, updatedAt: now });
      if (library.size > maxProjectSkills)
        return new PantheonError("conflict", `a project holds at most ${maxProjectSkills} skills; delete some first`, {
          details: { limit: maxProjectSkills },
        }).toFailure();
      try {
        for (const skill of skills) loadOrder(skill.name, library);
      } catch (error) {
        if (isPantheonError(error)) return error.toFailure();
        throw error;
      }
      for (const skill of skills) kv.put(keyOf(skill.name), library.get(skill.name));
      return { ok: true, value: { skills: skills.map((s) => summaryOf(library.get(s.name)!)) } };
    },
    /** The skills a runtime names and the ones they require, for its profile (none listed: nothing read). */
    of(runtime: { skills?: string[] }): Record<string, SkillEntry> | undefined {
      if (!runtime.skills?.length) return undefined;
      const library = all();
      const out: Record<string, SkillEntry> = {};
      const add = (name: string) => {
        const skill = library.get(name);
        if (!skill || Object.hasOwn(out, name)) return;
        out[name] = { description: skill.description, requires: skill.requires, body: skill.body };
        for (const required of skill.requires) add(required);
      };
      for (const name of runtime.skills) add(name);
      return out;
    },
    /** The skill and the ones it requires, each after what it requires: what loading it reads. */
    load(name: string): Result<StoredSkill[]> {
      const library = all();
      try {
        return { ok: true, value: loadOrder(name, library).map((n) => library.get(n)!) };
      } catch (error) {
        if (isPantheonError(error)) return error.toFailure();
        throw error;
      }
    },
    /** Deletes a skill no other skill requires. */
    remove(name: string): Result<true> {
      const library = all();
      if (!library.has(name))
        return new PantheonError("not_found", `no skill '${name}' in project '${project()}'`, {
          details: { skill: name },
        }).toFailure();
      const users = [...library.values()].filter((s) => s.requires.includes(name)).map((s) => s.name);
      if (users.length)
        return new PantheonError(
          "conflict",
          `skill '${name}' is required by ${users.join(", ")}: delete or change ${users.length > 1 ? "them" : "it"} first`,
          { details: { skill: name, requiredBy: users } },
        ).toFailure();
      kv.delete(keyOf(name));
      return { ok: true, value: true };
    },
  };
}

export type SkillStore = ReturnType<typeof makeSkillStore>;
