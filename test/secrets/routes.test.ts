import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, type ErrorBody } from "../api/client";
import { tenant } from "./helpers";

const registryOf = (slug: string) => env.REGISTRY.get(env.REGISTRY.idFromName(slug));
const issuesOf = async (res: Response) => ((await res.json()) as ErrorBody).error.details?.issues;

describe("project secrets: routes", () => {
  it("PUT answers the name, time and a short fingerprint, never the value; the list shows the same; the registry stores only ciphertext", async () => {
    const a = await tenant("sec-a");
    const value = "airtable-value-of-a-0123456789";
    const put = await a.setSecret("AIRTABLE_KEY", value);
    expect(put.status).toBe(200);
    const text = await put.text();
    expect(text).not.toContain(value);
    const { secret } = JSON.parse(text);
    expect(secret).toEqual({
      name: "AIRTABLE_KEY",
      updatedAt: expect.any(Number),
      fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
    });

    const list = await a.call(`/api/projects/${a.slug}/secrets`);
    expect(list.status).toBe(200);
    const listed = await list.text();
    expect(listed).not.toContain(value);
    expect(JSON.parse(listed)).toEqual({ secrets: [secret], grants: [] });

    // At rest: a sealed row, with neither the value nor its base64 in it.
    const rows = await runInDurableObject(registryOf(a.slug), (_instance, state) =>
      state.storage.sql.exec("SELECT * FROM secrets").toArray(),
    );
    expect(rows).toHaveLength(1);
    const row = JSON.stringify(rows);
    expect(row).not.toContain(value);
    expect(row).not.toContain(btoa(value));
    expect(rows[0]).toMatchObject({ name: "AIRTABLE_KEY", iv: expect.any(String), data: expect.any(String) });

    // The same value again keeps the fingerprint; another value changes it.
    const same = (await (await a.setSecret("AIRTABLE_KEY", value)).json()) as any;
    expect(same.secret.fingerprint).toBe(secret.fingerprint);
    const changed = (await (await a.setSecret("AIRTABLE_KEY", `${value}-2`)).json()) as any;
    expect(changed.secret.fingerprint).not.toBe(secret.fingerprint);

    expect((await a.call(`/api/projects/${a.slug}/secrets/AIRTABLE_KEY`, { method: "DELETE" })).status).toBe(204);
    expect(((await (await a.call(`/api/projects/${a.slug}/secrets`)).json()) as any).secrets).toEqual([]);
    const again = await a.call(`/api/projects/${a.slug}/secrets/AIRTABLE_KEY`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(((await again.json()) as ErrorBody).error.message).toBe("no secret 'AIRTABLE_KEY' in this project");
  });

  it("refuses bad names and values with 400 naming the field and what is allowed", async () => {
    const a = await tenant("sec-bad");
    const cases: [string, unknown, (string | number)[], string][] = [
      ["airtable_key", { value: "v-1234" }, ["name"], "UPPER_SNAKE"],
      ["PANTHEON_ADMIN_TOKEN", { value: "v-1234" }, ["name"], "a reserved name"],
      ["PANTHEON_SECRETS_KEY", { value: "v-1234" }, ["name"], "a reserved name"],
      ["OPENAI_BASE_URL", { value: "http://169.254.169.254/v1" }, ["value"], "link-local"],
      [`K${"X".repeat(64)}`, { value: "v-1234" }, ["name"], "at most 64 characters"],
      ["GOOD_NAME", { value: "" }, ["value"], "the value is empty"],
      ["GOOD_NAME", { value: "x".repeat(8 * 1024 + 1) }, ["value"], "at most 8192 bytes"],
      ["GOOD_NAME", { value: 42 }, ["value"], "a string"],
      ["GOOD_NAME", { value: "v-1234", extra: 1 }, [], "extra"],
    ];
    for (const [name, body, path, message] of cases) {
      const res = await a.call(`/api/projects/${a.slug}/secrets/${name}`, { method: "PUT", json: body });
      expect(res.status, name).toBe(400);
      const [issue] = (await issuesOf(res))!;
      if (path.length) expect(issue!.path, name).toEqual(path);
      expect(issue!.message.toLowerCase(), name).toContain(message.toLowerCase());
    }
    // Positive control: a good name and value are stored.
    expect((await a.setSecret("GOOD_NAME", "v-1234")).status).toBe(200);
  });

  it("scopes: a project's chat and approve tokens are refused; its admin token reaches only its own project; the deployment admin reaches every one", async () => {
    const a = await tenant("sec-sa");
    const b = await tenant("sec-sb");
    for (const token of [a.chat, a.approve]) {
      expect((await a.setSecret("K_ONE", "v-1234", token)).status).toBe(403);
      expect((await a.call(`/api/projects/${a.slug}/secrets`, {}, token)).status).toBe(403);
      expect((await a.call(`/api/projects/${a.slug}/secrets/K_ONE`, { method: "DELETE" }, token)).status).toBe(403);
    }
    expect((await a.setSecret("K_ONE", "v-1234")).status).toBe(200);
    // b's admin token: a's slug under b's own header is 403; under a's header the token is not a's: 401.
    const crossList = await b.call(`/api/projects/${a.slug}/secrets`);
    expect(crossList.status).toBe(403);
    expect(((await crossList.json()) as ErrorBody).error.message).toBe(
      `a token of project '${b.slug}' cannot reach project '${a.slug}'`,
    );
    expect(
      (await b.call(`/api/projects/${a.slug}/secrets/K_ONE`, { method: "PUT", json: { value: "overwrite" } })).status,
    ).toBe(403);
    expect((await b.call(`/api/projects/${a.slug}/secrets/K_ONE`, { method: "DELETE" })).status).toBe(403);
    expect(
      (await api(`/api/projects/${a.slug}/secrets`, { token: b.admin, headers: { "x-pantheon-project": a.slug } }))
        .status,
    ).toBe(401);
    // Nothing of b's attempts changed a's secret; the deployment admin sees it, and b's own list is empty.
    const seen = (await (await api(`/api/projects/${a.slug}/secrets`)).json()) as any;
    expect(seen.secrets.map((s: any) => s.name)).toEqual(["K_ONE"]);
    expect(((await (await b.call(`/api/projects/${b.slug}/secrets`)).json()) as any).secrets).toEqual([]);
    // An unknown project is a 404 for the deployment admin.
    expect((await api(`/api/projects/no-such-project-xyz/secrets`, { newProject: false })).status).toBe(404);
  });

  it("grants: only the deployment admin grants a worker secret to a project, by name; unset or reserved names are refused; a name is either the project's own or a grant", async () => {
    const b = await tenant("sec-g");
    const denied = await b.call(`/api/projects/${b.slug}/grants/AIRTABLE_KEY`, { method: "PUT" });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as ErrorBody).error.message).toContain("only the deployment's admin token");
    expect((await api(`/api/projects/${b.slug}/grants/NOT_A_WORKER_SECRET`, { method: "PUT" })).status).toBe(400);
    expect(await issuesOf(await api(`/api/projects/${b.slug}/grants/OPENAI_API_KEY`, { method: "PUT" }))).toEqual([
      { path: ["name"], message: expect.stringContaining("a model setting") },
    ]);
    const granted = await api(`/api/projects/${b.slug}/grants/AIRTABLE_KEY`, { method: "PUT" });
    expect(granted.status).toBe(200);
    expect(((await granted.json()) as any).grant).toEqual({ name: "AIRTABLE_KEY", grantedAt: expect.any(Number) });
    expect(((await (await b.call(`/api/projects/${b.slug}/secrets`)).json()) as any).grants).toEqual([
      { name: "AIRTABLE_KEY", grantedAt: expect.any(Number) },
    ]);
    expect((await b.setSecret("AIRTABLE_KEY", "b-own-value")).status).toBe(409);
    expect((await b.call(`/api/projects/${b.slug}/grants/AIRTABLE_KEY`, { method: "DELETE" })).status).toBe(403);
    expect((await api(`/api/projects/${b.slug}/grants/AIRTABLE_KEY`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/api/projects/${b.slug}/grants/AIRTABLE_KEY`, { method: "DELETE" })).status).toBe(404);
    // Revoked: the name is free for the project's own.
    expect((await b.setSecret("AIRTABLE_KEY", "b-own-value")).status).toBe(200);
    expect((await api(`/api/projects/${b.slug}/grants/AIRTABLE_KEY`, { method: "PUT" })).status).toBe(409);
  });

  it("a deleted project's secrets go with it: made again with the same slug, it has none", async () => {
    const a = await tenant("sec-del");
    expect((await a.setSecret("K_GONE", "v-gone-1234")).status).toBe(200);
    expect((await api(`/api/projects/${a.slug}`, { method: "DELETE" })).status).toBe(204);
    expect((await api("/api/projects", { method: "POST", json: { slug: a.slug } })).status).toBe(201);
    expect(((await (await api(`/api/projects/${a.slug}/secrets`)).json()) as any).secrets).toEqual([]);
  });
});
