import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName, type ErrorBody } from "./client";

describe("agents CRUD", () => {
  it("creates an agent with defaults and returns it with its live status", async () => {
    const name = uniqueName();
    const res = await api("/api/agents", { method: "POST", json: { name } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({
      name,
      description: "",
      systemPrompt: expect.any(String),
      model: { provider: "offline", name: "offline" },
      status: "idle",
    });
  });

  it("lists, gets, updates and deletes an agent", async () => {
    const agent = await createAgent();
    const list = (await (await api("/api/agents")).json()) as { agents: { name: string }[] };
    expect(list.agents.map((a) => a.name)).toContain(agent.name);

    const patched = await api(`/api/agents/${agent.name}`, {
      method: "PATCH",
      json: { description: "Reviews code", model: { provider: "openai", name: "gpt-4o-mini", temperature: 0.3 } },
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      description: "Reviews code",
      model: { provider: "openai", name: "gpt-4o-mini", temperature: 0.3 },
    });

    const got = (await (await api(`/api/agents/${agent.name}`)).json()) as { description: string };
    expect(got.description).toBe("Reviews code");

    expect((await api(`/api/agents/${agent.name}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/api/agents/${agent.name}`)).status).toBe(404);
    const afterDelete = await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "hello?" },
    });
    expect(afterDelete.status).toBe(404);
  });

  it("a second agent with the same name is 409", async () => {
    const agent = await createAgent();
    const res = await api("/api/agents", { method: "POST", json: { name: agent.name } });
    expect(res.status).toBe(409);
    expect(((await res.json()) as ErrorBody).error.code).toBe("conflict");
  });

  it("names must be lower-case slugs; the error names the field and what is allowed", async () => {
    for (const name of ["Has Caps", "1starts-with-digit", "", "a".repeat(64), "dots.not.allowed"]) {
      const res = await api("/api/agents", { method: "POST", json: { name } });
      expect(res.status, name).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.error.code).toBe("validation_failed");
      expect(body.error.details?.issues?.[0]?.path).toEqual(["name"]);
      expect(body.error.details?.issues?.[0]?.message).toContain("lower-case slug");
    }
  });

  it("unknown fields and wrong types are reported per field", async () => {
    const res = await api("/api/agents", {
      method: "POST",
      json: { name: uniqueName(), colour: "blue", model: { temperature: 7 } },
    });
    expect(res.status).toBe(400);
    const paths = ((await res.json()) as ErrorBody).error.details?.issues?.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["model.temperature", ""]));
  });

  it("a deny-pattern gate the linear-time engine cannot run is refused on create and update, naming the gate and why", async () => {
    const gates = [
      { name: "ok", kind: "deny-pattern", pattern: "password" },
      { name: "no-echo", kind: "deny-pattern", pattern: "(\\w+) \\1" },
    ];
    const created = await api("/api/agents", { method: "POST", json: { name: uniqueName(), runtime: { gates } } });
    expect(created.status).toBe(400);
    const body = (await created.json()) as ErrorBody;
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.details?.issues).toEqual([
      {
        path: ["runtime", "gates", 1, "pattern"],
        message: "gate 'no-echo': backreferences (\\1, \\k<name>) are not supported: they cannot run in linear time",
      },
    ]);

    const agent = await createAgent();
    const patched = await api(`/api/agents/${agent.name}`, {
      method: "PATCH",
      json: { runtime: { gates: [{ name: "behind", kind: "deny-pattern", pattern: "(?<!x)y" }] } },
    });
    expect(patched.status).toBe(400);
    expect(((await patched.json()) as ErrorBody).error.details?.issues?.[0]).toEqual({
      path: ["runtime", "gates", 0, "pattern"],
      message: "gate 'behind': lookbehind ((?<=…), (?<!…)) is not supported by the linear-time engine",
    });
  });

  it("an unknown agent is 404 on every agent route", async () => {
    const name = uniqueName("ghost");
    expect((await api(`/api/agents/${name}`)).status).toBe(404);
    expect((await api(`/api/agents/${name}`, { method: "PATCH", json: { description: "x" } })).status).toBe(404);
    expect((await api(`/api/agents/${name}`, { method: "DELETE" })).status).toBe(404);
    expect((await api(`/api/agents/${name}/messages`, { method: "POST", json: { content: "hi" } })).status).toBe(404);
    expect((await api(`/api/agents/${name}/messages`)).status).toBe(404);
    expect((await api(`/api/agents/${name}/sessions`)).status).toBe(404);
  });

  it("a malformed agent name in the path is 400, not 500", async () => {
    const res = await api("/api/agents/NOT_A_SLUG/messages");
    expect(res.status).toBe(400);
  });
});
