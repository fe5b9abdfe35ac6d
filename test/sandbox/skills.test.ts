import { describe, expect, it } from "vitest";
import { loadOrder } from "../../core/skills";
import { tenant } from "../secrets/helpers";

const skillMd = (name: string, description: string, body: string, requires?: string[]) =>
  `---\nname: ${name}\ndescription: ${description}\n${requires ? `requires: [${requires.join(", ")}]\n` : ""}---\n${body}\n`;

type Tenant = Awaited<ReturnType<typeof tenant>>;
const importSkills = async (t: Tenant, skills: Record<string, Record<string, string>>) => {
  const res = await t.call(`/api/projects/${t.slug}/skills`, { method: "POST", json: { skills } });
  return { status: res.status, body: (await res.json()) as any };
};

describe("a project's skill library (Agent Skills folders)", () => {
  it("imports folders with SKILL.md and files; a listing holds name, description and requires; loading one reads what it requires first", async () => {
    const t = await tenant("skills");
    const made = await importSkills(t, {
      "csv-basics": { "SKILL.md": skillMd("csv-basics", "Read CSV text", "Split lines, then commas.") },
      "csv-report": {
        "SKILL.md": skillMd("csv-report", "Report on a CSV's columns", "Count each column.", ["csv-basics"]),
        "scripts/stats.ts": "export default async () => 1;",
      },
    });
    expect(made.status).toBe(201);
    const listed = (await (await t.call(`/api/projects/${t.slug}/skills`)).json()) as any;
    expect(listed.skills).toEqual([
      { name: "csv-basics", description: "Read CSV text", requires: [] },
      { name: "csv-report", description: "Report on a CSV's columns", requires: ["csv-basics"] },
    ]);
    const one = (await (await t.call(`/api/projects/${t.slug}/skills/csv-report`)).json()) as any;
    expect(one.skill).toMatchObject({
      body: "Count each column.\n",
      files: { "scripts/stats.ts": "export default async () => 1;" },
    });
    const loaded = (await (await t.call(`/api/projects/${t.slug}/skills/csv-report/load`)).json()) as any;
    expect(loaded.skills.map((s: { name: string }) => s.name)).toEqual(["csv-basics", "csv-report"]);
    // A skill another requires is not deleted; one nobody requires is.
    const held = await t.call(`/api/projects/${t.slug}/skills/csv-basics`, { method: "DELETE" });
    expect(held.status).toBe(409);
    expect((await t.call(`/api/projects/${t.slug}/skills/csv-report`, { method: "DELETE" })).status).toBe(204);
    expect((await t.call(`/api/projects/${t.slug}/skills/csv-basics`, { method: "DELETE" })).status).toBe(204);
  });

  it("refuses a path like ../../ out of its folder, naming it; the same folder without it imports", async () => {
    const t = await tenant("skills-jail");
    const folder = (extra: Record<string, string>) => ({
      notes: { "SKILL.md": skillMd("notes", "Take notes", "Write them down."), ...extra },
    });
    for (const path of ["../../etc/passwd", "/etc/passwd", "scripts/../../x.ts"]) {
      const refused = await importSkills(t, folder({ [path]: "stolen" }));
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toBe(
        `$.skills["notes"][${JSON.stringify(path)}]: a file's path stays inside its skill's folder: relative, without '.' or '..' segments`,
      );
    }
    expect((await importSkills(t, folder({ "references/how.md": "kept" }))).status).toBe(201);
  });

  it("refuses a cycle of requires naming it, and a required skill the library lacks, saving nothing; a chain imports", async () => {
    const t = await tenant("skills-cycle");
    const cycle = await importSkills(t, {
      alpha: { "SKILL.md": skillMd("alpha", "First", "A.", ["beta"]) },
      beta: { "SKILL.md": skillMd("beta", "Second", "B.", ["alpha"]) },
    });
    expect(cycle.status).toBe(409);
    expect(cycle.body.error.message).toBe("skills require each other in a cycle: alpha → beta → alpha");
    const missing = await importSkills(t, { alpha: { "SKILL.md": skillMd("alpha", "First", "A.", ["gamma"]) } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(
      "skill 'alpha' requires 'gamma', which the project's library does not hold",
    );
    expect(((await (await t.call(`/api/projects/${t.slug}/skills`)).json()) as any).skills).toEqual([]);
    const chain = await importSkills(t, {
      alpha: { "SKILL.md": skillMd("alpha", "First", "A.", ["beta"]) },
      beta: { "SKILL.md": skillMd("beta", "Second", "B.") },
    });
    expect(chain.status).toBe(201);
  });

  it("refuses a folder without SKILL.md or without a description, naming it", async () => {
    const t = await tenant("skills-bad");
    const none = await importSkills(t, { empty: { "notes.md": "x" } });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toContain(`$.skills["empty"]: a skill's folder holds SKILL.md`);
    const nodesc = await importSkills(t, { plain: { "SKILL.md": "---\nname: plain\n---\nBody\n" } });
    expect(nodesc.status).toBe(400);
    expect(nodesc.body.error.message).toMatch(/^\$\.skills\["plain"\]\["SKILL\.md"\]: .*description/);
  });
});

describe("loadOrder", () => {
  it("puts each skill after what it requires, once, in a diamond", () => {
    const library = new Map([
      ["top", { requires: ["left", "right"] }],
      ["left", { requires: ["base"] }],
      ["right", { requires: ["base"] }],
      ["base", { requires: [] }],
    ]);
    expect(loadOrder("top", library)).toEqual(["base", "left", "right", "top"]);
    expect(() => loadOrder("top", new Map([...library, ["base", { requires: ["top"] }]]))).toThrow(
      "skills require each other in a cycle: top → left → base → top",
    );
  });
});
