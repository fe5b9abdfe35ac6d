import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName, type ErrorBody } from "./client";

const issuesOf = async (res: Response) => ((await res.json()) as ErrorBody).error.details?.issues ?? [];
const providerName = () => `p${crypto.randomUUID().slice(0, 8)}`;

describe("a project's named providers (PUT/GET/DELETE /api/projects/:slug/providers)", () => {
  it("stores one, lists it with its key's secret name, and an agent may then name its models", async () => {
    const name = providerName();
    expect(
      (
        await api("/api/projects/default/secrets/ROUTER_KEY", {
          method: "PUT",
          json: { value: "sk-or-secret-value-1234" },
        })
      ).status,
    ).toBe(200);
    const put = await api(`/api/projects/default/providers/${name}`, {
      method: "PUT",
      json: { baseUrl: "https://openrouter.example/api/v1", keySecret: "ROUTER_KEY" },
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({
      provider: {
        name,
        kind: "openai-compatible",
        baseUrl: "https://openrouter.example/api/v1",
        keySecret: "ROUTER_KEY",
      },
      agents: [],
    });
    const listed = (await (await api("/api/projects/default/providers")).json()) as { providers: { name: string }[] };
    expect(listed.providers.map((p) => p.name)).toContain(name);
    expect(JSON.stringify(listed)).not.toContain("sk-or-secret-value-1234");

    const agent = await createAgent({ model: `${name}/meta-llama/llama-3.1-70b` });
    expect(agent.model).toMatchObject({ provider: name, name: "meta-llama/llama-3.1-70b" });
    expect((agent.providers as Record<string, unknown> | undefined)?.[name]).toMatchObject({
      baseUrl: "https://openrouter.example/api/v1",
    });
    expect((agent.resolvedModel as { reason: string }).reason).toBe(`cascade ${name}/meta-llama/llama-3.1-70b`);
  });

  it("refuses to delete a provider an agent's model names (409 naming it), and deletes it once none does", async () => {
    const name = providerName();
    await api(`/api/projects/default/providers/${name}`, {
      method: "PUT",
      json: { baseUrl: "https://models.example/v1" },
    });
    const agent = await createAgent({ model: ["openai/gpt-4o-mini", `${name}/small`] });
    const refused = await api(`/api/projects/default/providers/${name}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as ErrorBody).error.message).toBe(
      `provider '${name}' is the model of agent ${agent.name}: change their model first`,
    );
    expect(
      (await api(`/api/agents/${agent.name}`, { method: "PATCH", json: { model: "openai/gpt-4o-mini" } })).status,
    ).toBe(200);
    expect((await api(`/api/projects/default/providers/${name}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/api/projects/default/providers/${name}`)).status).toBe(404);
  });

  it("answers a client's mistakes with a 400 at the field: a built-in name, an unknown kind, a non-http URL, the metadata address", async () => {
    const builtin = await api("/api/projects/default/providers/openai", {
      method: "PUT",
      json: { baseUrl: "https://x.example/v1" },
    });
    expect(builtin.status).toBe(400);
    expect((await issuesOf(builtin))[0]?.path).toEqual(["name"]);
    const kind = await api(`/api/projects/default/providers/${providerName()}`, {
      method: "PUT",
      json: { baseUrl: "https://x.example/v1", kind: "grpc" },
    });
    expect(await issuesOf(kind)).toEqual([{ path: ["kind"], message: "one of openai-compatible, openai, anthropic" }]);
    const url = await api(`/api/projects/default/providers/${providerName()}`, {
      method: "PUT",
      json: { baseUrl: "ftp://x.example/v1" },
    });
    expect((await issuesOf(url))[0]?.path).toEqual(["baseUrl"]);
    const metadata = await api(`/api/projects/default/providers/${providerName()}`, {
      method: "PUT",
      json: { baseUrl: "http://169.254.169.254/v1" },
    });
    expect(metadata.status).toBe(400);
    expect((await issuesOf(metadata))[0]?.path).toEqual(["baseUrl"]);
  });

  it("another project cannot see or name this project's provider; its own admin sees its own (positive control)", async () => {
    const name = providerName();
    await api(`/api/projects/default/providers/${name}`, {
      method: "PUT",
      json: { baseUrl: "https://models.example/v1" },
    });
    const other = uniqueName("tenant");
    const inOther = await api("/api/agents", {
      method: "POST",
      headers: { "x-pantheon-project": other },
      json: { name: uniqueName(), model: `${name}/small` },
    });
    expect(inOther.status).toBe(400);
    expect((await issuesOf(inOther))[0]).toMatchObject({
      path: ["model", "provider"],
      message: expect.stringContaining(`a provider of project '${other}' (it names none`),
    });
    expect(
      ((await (await api(`/api/projects/${other}/providers`)).json()) as { providers: unknown[] }).providers,
    ).toEqual([]);
  });
});
