import { describe, expect, it } from "vitest";
import { loadOrder } from "../../core/skills";
import { uniqueName } from "../api/client";
import { doubleUrl } from "../runs/scripted";
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

describe("an agent's skills", () => {
  it("sit in its context as names and descriptions only; use_skill loads one after what it requires", async () => {
    const t = await tenant("skills-agent");
    await importSkills(t, {
      "csv-basics": { "SKILL.md": skillMd("csv-basics", "Read CSV text", "Split lines, then commas.") },
      "csv-report": {
        "SKILL.md": skillMd("csv-report", "Report on a CSV's columns", "Count each column.", ["csv-basics"]),
      },
      unlisted: { "SKILL.md": skillMd("unlisted", "Not this agent's", "Secret method.") },
    });
    const model = uniqueName("model");
    const name = uniqueName("reporter");
    const made = await t.call("/api/agents", {
      method: "POST",
      json: {
        name,
        model: { provider: "openai", name: model },
        runtime: { tools: ["clock.now"], skills: ["csv-report"] },
      },
    });
    expect(made.status).toBe(201);
    const tools = ((await (await t.call(`/api/agents/${name}/tools`)).json()) as any).tools as {
      name: string;
      description: string;
    }[];
    const useSkill = tools.find((tool) => tool.name === "use_skill");
    expect(useSkill?.description).toContain("- csv-report: Report on a CSV's columns");
    // Bodies are not in the context until loaded, nor is a skill the agent does not list.
    expect(JSON.stringify(tools)).not.toContain("Count each column.");
    expect(JSON.stringify(tools)).not.toContain("unlisted");

    await fetch(`${doubleUrl()}/__script/${model}`, {
      method: "POST",
      body: JSON.stringify([
        { toolCalls: [{ name: "use_skill", arguments: { name: "csv-report" } }] },
        { content: "Loaded." },
      ]),
    });
    const res = await t.call(`/api/agents/${name}/messages`, { method: "POST", json: { content: "report" } });
    expect(((await res.json()) as any).status).toBe("completed");
    const calls = (await (await fetch(`${doubleUrl()}/__calls/${model}`)).json()) as {
      messages: { role: string; content: unknown }[];
    }[];
    const loaded = calls
      .at(-1)
      ?.messages.filter((m) => m.role === "tool")
      .map((m) => String(m.content))
      .join(" ");
    expect(loaded).toContain("# Skill: csv-basics");
    expect(loaded!.indexOf("Split lines, then commas.")).toBeLessThan(loaded!.indexOf("Count each column."));
    // The positive control of the context check: the first model call saw the listing, not the bodies.
    expect(JSON.stringify(calls[0])).toContain("csv-report: Report on a CSV's columns");
    expect(JSON.stringify(calls[0])).not.toContain("Count each column.");
  });

  it("use_skill refuses a skill the agent does not list, naming its skills", async () => {
    const t = await tenant("skills-refuse");
    await importSkills(t, {
      mine: { "SKILL.md": skillMd("mine", "Mine", "Do mine.") },
      other: { "SKILL.md": skillMd("other", "Other", "Do other.") },
    });
    const name = uniqueName("chooser");
    await t.call("/api/agents", { method: "POST", json: { name, runtime: { tools: [], skills: ["mine"] } } });
    const refused = await t.call(`/api/agents/${name}/tools/use_skill/invoke`, {
      method: "POST",
      json: { arguments: { name: "other" } },
    });
    // The schema gate refuses it before the tool runs: the enum names the agent's skills.
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as any).error.message).toBe(
      `gate 'schema' refused the call: invalid arguments: name: Instance does not match any of ["mine"].`,
    );
    const ok = await t.call(`/api/agents/${name}/tools/use_skill/invoke`, {
      method: "POST",
      json: { arguments: { name: "mine" } },
    });
    expect(JSON.stringify(await ok.json())).toContain("Do mine.");
  });
});
