import { describe, expect, it } from "vitest";
import { compileScript, inlineToolPaths } from "../../core/dsl";
import { api, uniqueName } from "../api/client";

/** A fresh project for each test, named in the header (the client creates it). */
function inProject() {
  const project = uniqueName("proj")
    .replace(/[^a-z0-9-]/g, "")
    .slice(0, 40);
  const call = (path: string, init: Parameters<typeof api>[1] = {}) =>
    api(path, { ...init, headers: { ...init.headers, "x-pantheon-project": project } });
  const putScript = async (agent: string, source: string) => {
    const res = await call(`/api/agents/${agent}/script`, {
      method: "PUT",
      headers: { "content-type": "text/x-pantheon" },
      body: source,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const tools = async () =>
    ((await (await call(`/api/projects/${project}/tools`)).json()) as { tools: { name: string; version: number }[] })
      .tools;
  return { project, call, putScript, tools };
}

/** A DSL script for `agent` holding the given (tool …) forms. */
const withTools = (agent: string, ...forms: string[]) => `(actor "${agent}"
  (description "Doubles numbers.")
  (tools "clock.now")
${forms.map((f) => `  ${f}`).join("\n")})`;

const doubler = `(tool "num.double"
    :description "twice a number"
    :input {:type "object" :properties {:n {:type "number"}} :required ["n"]}
    :idempotent true
    :source "export default async (input: { n: number }) => input.n * 2;")`;

describe("(tool …) in a script", () => {
  it("importing the script stores the project tool, the actor lists it and runs it; the same script again keeps its version", async () => {
    const t = inProject();
    const agent = uniqueName("doubler");
    const put = await t.putScript(agent, withTools(agent, doubler));
    expect(put.status).toBe(201);
    expect(JSON.stringify(put.body.warnings)).not.toContain("num.double");
    expect(await t.tools()).toMatchObject([{ name: "num.double", version: 1 }]);
    const shown = (await (await t.call(`/api/projects/${t.project}/tools/num.double`)).json()) as any;
    expect(shown.tool).toMatchObject({
      description: "twice a number",
      input: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      idempotent: true,
    });
    // The stored source declares itself, as a file added with `pantheon tools add` does.
    expect(shown.tool.source).toContain('export const tool = {"name":"num.double"');

    const listed = (await (await t.call(`/api/agents/${agent}/tools`)).json()) as any;
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toContain("num.double");
    const run = await t.call(`/api/agents/${agent}/tools/num.double/invoke`, {
      method: "POST",
      json: { arguments: { n: 21 } },
    });
    expect(JSON.stringify(await run.json())).toContain('"output":"42"');

    expect((await t.putScript(agent, withTools(agent, doubler))).status).toBe(200);
    expect(await t.tools()).toMatchObject([{ name: "num.double", version: 1 }]);
  });

  it("takes a source that declares itself, when the form gives only its name", async () => {
    const t = inProject();
    const agent = uniqueName("self");
    const source = `export const tool = { name: 'num.half', description: 'half a number' };
export default async (input: { n: number }) => input.n / 2;`;
    const form = `(tool "num.half" :source "${source}")`;
    expect((await t.putScript(agent, withTools(agent, form))).status).toBe(201);
    const run = await t.call(`/api/agents/${agent}/tools/num.half/invoke`, {
      method: "POST",
      json: { arguments: { n: 9 } },
    });
    expect(JSON.stringify(await run.json())).toContain('"output":"4.5"');
  });

  it("refuses a bad form with a 400 naming the field and its line, storing nothing; the good form beside it is stored", async () => {
    const t = inProject();
    const agent = uniqueName("bad");
    const refused = async (form: string) => {
      const put = await t.putScript(agent, withTools(agent, doubler, form));
      expect(put.status).toBe(400);
      const { message, details } = put.body.error;
      return { message, issues: details.issues } as {
        message: string;
        issues: { line: number; form: string; message: string }[];
      };
    };
    const noCode = await refused(`(tool "num.none" :description "no code")`);
    expect(noCode.issues[0]).toMatchObject({
      line: 9,
      form: "tool",
      message: `(tool "num.none") needs its code as :source "…" or :path "file.ts", found neither`,
    });
    expect(
      (await refused(`(tool "num.hosts" :description "x" :hosts "a.example" :source "export default () => 1;")`))
        .message,
    ).toContain(`(tool "num.hosts") :hosts must be a vector of strings`);
    const broken = await refused(`(tool "num.broken" :description "x" :source "export default (")`);
    expect(broken.issues[0]?.message).toMatch(/^\(tool "num\.broken"\) line 1: not valid TypeScript/);
    expect((await refused(`(tool "num.nodesc" :source "export default () => 1;")`)).message).toContain(
      `(tool "num.nodesc") line 2: tool.description:`,
    );
    expect((await refused(`(tool "num.file" :description "x" :path "tools/num.ts")`)).message).toContain(
      `(tool "num.file") :path "tools/num.ts" is read by the CLI (pantheon script push); the API takes the code as :source`,
    );
    expect(
      (
        await refused(
          `(tool "num.twice" :description "again" :source "export const tool = { name: 'num.twice', description: 'x' }; export default () => 1;")`,
        )
      ).message,
    ).toContain(`(tool "num.twice") :description is given twice: the source declares itself`);
    expect(
      (
        await refused(
          `(tool "num.other" :source "export const tool = { name: 'num.else', description: 'x' }; export default () => 1;")`,
        )
      ).message,
    ).toContain(`(tool "num.other") the source declares the name 'num.else', not 'num.other'`);
    expect(
      (await refused(`(tool "num.secret" :description "x" :secrets ["NOT_SET"] :source "export default () => 1;")`))
        .message,
    ).toContain(`(tool "num.secret") :secrets[0]:`);
    // Nothing of a refused script was stored, not even its good tool; the good script alone is.
    expect(await t.tools()).toEqual([]);
    expect((await t.putScript(agent, withTools(agent, doubler))).status).toBe(201);
    expect((await t.tools()).map((tool) => tool.name)).toEqual(["num.double"]);
  });
});

describe("(tool … :path) read by the CLI", () => {
  it("turns each :path into :source with the file's text, escaped so the DSL reads it back as it was", () => {
    const code = 'export default async (input: { s: string }) => input.s.split("\\n").length; // "quoted"\n';
    const script = `(actor "a"\n  (tool "text.lines" :description "lines" :path "tools/lines.ts")\n  (tool "num.double" :description "x" :source "export default () => 2;"))`;
    const read: string[] = [];
    const out = inlineToolPaths(script, (path) => {
      read.push(path);
      return code;
    });
    expect(read).toEqual(["tools/lines.ts"]);
    expect(out).not.toContain(":path");
    expect(compileScript(out).scriptTools).toMatchObject([
      { name: "text.lines", source: code, fields: { description: "lines" } },
      { name: "num.double", source: "export default () => 2;" },
    ]);
  });

  it("refuses a file that cannot be read, at the path's line; a script without :path is left as it is", () => {
    const script = `(actor "a"\n  (tool "x" :description "d" :path "missing.ts"))`;
    expect(() =>
      inlineToolPaths(script, () => {
        throw new Error("no such file");
      }),
    ).toThrow(`2:36 (tool): (tool …) :path "missing.ts" cannot be read: no such file`);
    const plain = `(actor "a" (tool "x" :description "d" :source "export default () => 1;"))`;
    expect(inlineToolPaths(plain, () => "never")).toBe(plain);
  });
});
