import { api, uniqueName } from "../../api/client";
import { json, withGateway } from "./fixture";
import type { RouteEntry, RouteFixture } from "./types";

/** Projects, their secrets, grants, providers and quotas; messaging gateways; the /api fallback. */
/** A script tool's file, as `pantheon tools add` sends it. */
const sampleScript = (name: string) =>
  `export const tool = { name: "${name}", description: "adds two numbers" };\nexport default async function (input: { a: number; b: number }) { return input.a + input.b; }\n`;

/** A skill folder's SKILL.md (the Agent Skills format: name and description front matter, then instructions). */
const sampleSkill = (name: string) => `---\nname: ${name}\ndescription: A sample skill.\n---\nSay hello.\n`;
/** Adds skill `name` to project default's library (the setup of a sample that reads or removes one). */
async function addSkill(name: string): Promise<string> {
  await json(
    await api("/api/projects/default/skills", {
      method: "POST",
      json: { skills: { [name]: { "SKILL.md": sampleSkill(name) } } },
    }),
    "add skill",
  );
  return name;
}
/** Declares MCP server `name` for every agent of project default (the MCP test server, no credentials). */
async function addWideServer(f: RouteFixture, name: string): Promise<string> {
  await json(
    await api("/api/projects/default/mcp", { method: "POST", json: { name, url: f.mcpUrl } }),
    "declare project MCP server",
  );
  return name;
}

export const projectRoutes: readonly RouteEntry[] = [
  // ---- projects ------------------------------------------------------------------------------
  { method: "GET", path: "/api/projects", family: "api", scope: "admin", expect: 200, sample: () => ({ params: {} }) },
  {
    method: "POST",
    path: "/api/projects",
    family: "api",
    scope: "admin",
    expect: 201,
    deploymentAdminOnly: true,
    sample: () => ({ params: {}, body: { json: { slug: uniqueName("proj"), title: "A sample project" } } }),
  },
  {
    method: "DELETE",
    path: "/api/projects/:slug",
    family: "api",
    scope: "admin",
    expect: 204,
    deploymentAdminOnly: true,
    sample: async () => {
      const slug = uniqueName("gone");
      await json(await api("/api/projects", { method: "POST", json: { slug } }), "create project");
      return { params: { slug } };
    },
  },
  {
    method: "POST",
    path: "/api/projects/:slug/import",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({
      params: { slug: "default" },
      body: {
        json: {
          agents: {
            [uniqueName("imported")]: {
              name: "Imported",
              description: "From a project file",
              tools: ["clock.now", "airtable.py"],
              connections: [],
            },
          },
        },
      },
    }),
  },
  {
    method: "GET",
    path: "/api/projects/:slug/export",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({ params: { slug: "default" } }),
  },
  // A project's forge (where its pull requests open): that project's admin, or the deployment's.
  {
    method: "GET",
    path: "/api/projects/:slug/forge",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({ params: { slug: "default" } }),
  },
  {
    method: "PUT",
    path: "/api/projects/:slug/forge",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({
      params: { slug: "default" },
      body: { json: { kind: "github", apiBase: "https://api.github.com" } },
    }),
  },
  {
    method: "DELETE",
    path: "/api/projects/:slug/forge",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: () => ({ params: { slug: "default" } }),
  },
  // Project secrets: that project's admin (or the deployment's); grants and the bot owners: the deployment admin only.
  {
    method: "GET",
    path: "/api/projects/:slug/secrets",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({ params: { slug: "default" } }),
  },
  {
    method: "PUT",
    path: "/api/projects/:slug/secrets/:name",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({
      params: { slug: "default", name: "SAMPLE_KEY" },
      body: { json: { value: "sample-secret-value" } },
    }),
  },
  {
    method: "DELETE",
    path: "/api/projects/:slug/secrets/:name",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async () => {
      const name = `GONE_${crypto.randomUUID().slice(0, 8).toUpperCase().replaceAll("-", "_")}`;
      await json(
        await api(`/api/projects/default/secrets/${name}`, { method: "PUT", json: { value: "to-be-deleted" } }),
        "set secret",
      );
      return { params: { slug: "default", name } };
    },
  },
  {
    method: "PUT",
    path: "/api/projects/:slug/grants/:name",
    family: "api",
    scope: "admin",
    expect: 200,
    deploymentAdminOnly: true,
    sample: () => ({ params: { slug: "default", name: "AIRTABLE_KEY" } }),
  },
  {
    method: "DELETE",
    path: "/api/projects/:slug/grants/:name",
    family: "api",
    scope: "admin",
    expect: 204,
    deploymentAdminOnly: true,
    sample: async () => {
      await json(await api("/api/projects/default/grants/MCP_TEST_URL", { method: "PUT" }), "grant");
      return { params: { slug: "default", name: "MCP_TEST_URL" } };
    },
  },
  {
    method: "GET",
    path: "/api/gateways/telegram",
    family: "api",
    scope: "admin",
    expect: 200,
    deploymentAdminOnly: true,
    sample: () => ({ params: {} }),
  },
  // Script tools (core/sandbox): that project's admin (or the deployment's).
  {
    method: "GET",
    path: "/api/projects/:slug/tools",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({ params: { slug: "default" } }),
  },
  {
    method: "POST",
    path: "/api/projects/:slug/tools",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: () => ({ params: { slug: "default" }, body: { json: { source: sampleScript("sample.script") } } }),
  },
  {
    method: "GET",
    path: "/api/projects/:slug/tools/:name",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: async () => {
      await json(
        await api("/api/projects/default/tools", { method: "POST", json: { source: sampleScript("shown.script") } }),
        "add script tool",
      );
      return { params: { slug: "default", name: "shown.script" } };
    },
  },
  {
    method: "DELETE",
    path: "/api/projects/:slug/tools/:name",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async () => {
      const name = `gone.script-${crypto.randomUUID().slice(0, 8)}`;
      await json(
        await api("/api/projects/default/tools", { method: "POST", json: { source: sampleScript(name) } }),
        "add",
      );
      return { params: { slug: "default", name } };
    },
  },
  // The project's skill library (core/skills): that project's admin (or the deployment's).
  {
    method: "GET",
    path: "/api/projects/:slug/skills",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({ params: { slug: "default" } }),
  },
  {
    method: "POST",
    path: "/api/projects/:slug/skills",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: () => ({
      params: { slug: "default" },
      body: { json: { skills: { "sample-skill": { "SKILL.md": sampleSkill("sample-skill") } } } },
    }),
  },
  {
    method: "GET",
    path: "/api/projects/:slug/skills/:name",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: async () => ({ params: { slug: "default", name: await addSkill("shown-skill") } }),
  },
  {
    method: "GET",
    path: "/api/projects/:slug/skills/:name/load",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: async () => ({ params: { slug: "default", name: await addSkill("loaded-skill") } }),
  },
  {
    method: "DELETE",
    path: "/api/projects/:slug/skills/:name",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async () => ({
      params: { slug: "default", name: await addSkill(`gone-skill-${crypto.randomUUID().slice(0, 8)}`) },
    }),
  },
  // The project's MCP servers, for all its agents: that project's admin (or the deployment's).
  {
    method: "GET",
    path: "/api/projects/:slug/mcp",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({ params: { slug: "default" } }),
  },
  {
    method: "POST",
    path: "/api/projects/:slug/mcp",
    family: "api",
    scope: "admin",
    expect: 201,
    sample: (f) => ({ params: { slug: "default" }, body: { json: { name: "sample-wide", url: f.mcpUrl } } }),
  },
  {
    method: "POST",
    path: "/api/projects/:slug/mcp/:name/authorise",
    family: "api",
    scope: "admin",
    // A server declared without OAuth is none the project authorises: 404 (test/node/mcp-project.check.mjs authorises a real one).
    expect: 404,
    sample: async (f) => ({ params: { slug: "default", name: await addWideServer(f, "plain-wide") } }),
  },
  {
    method: "DELETE",
    path: "/api/projects/:slug/mcp/:name",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async (f) => ({
      params: { slug: "default", name: await addWideServer(f, `gone-wide-${crypto.randomUUID().slice(0, 8)}`) },
    }),
  },
  // The browser's return from the consent page of a project's MCP server: no token, the registry's
  // one-use state is the credential, so a state it never issued is a 400.
  {
    method: "GET",
    path: "/api/oauth/mcp-project/:project/callback",
    family: "api",
    scope: "public",
    expect: 400,
    sample: () => ({ params: { project: "default" }, query: { code: "sample-code", state: "sample-nonce.docs" } }),
  },
  // Named model providers: that project's admin (or the deployment's).
  {
    method: "GET",
    path: "/api/projects/:slug/providers",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({ params: { slug: "default" } }),
  },
  {
    method: "PUT",
    path: "/api/projects/:slug/providers/:name",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({
      params: { slug: "default", name: "sample-models" },
      body: { json: { baseUrl: "https://models.example.com/v1" } },
    }),
  },
  {
    method: "GET",
    path: "/api/projects/:slug/providers/:name",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: async () => {
      await json(
        await api("/api/projects/default/providers/shown-models", {
          method: "PUT",
          json: { baseUrl: "https://models.example.com/v1" },
        }),
        "set provider",
      );
      return { params: { slug: "default", name: "shown-models" } };
    },
  },
  {
    method: "DELETE",
    path: "/api/projects/:slug/providers/:name",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async () => {
      const name = `gone-${crypto.randomUUID().slice(0, 8)}`;
      await json(
        await api(`/api/projects/default/providers/${name}`, {
          method: "PUT",
          json: { baseUrl: "https://models.example.com/v1" },
        }),
        "set provider",
      );
      return { params: { slug: "default", name } };
    },
  },
  // Daily caps (workers/api/quotas.ts): the samples remove caps or move the clock by nothing, so they hold no other test back.
  { method: "GET", path: "/api/quotas", family: "api", scope: "chat", expect: 200, sample: () => ({ params: {} }) },
  {
    method: "PUT",
    path: "/api/quotas",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: () => ({ params: {}, body: { json: { tokensPerDay: null, usdPerDay: null } } }),
  },
  {
    method: "PUT",
    path: "/api/quotas/agents/:name",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent }, body: { json: { tokensPerDay: null } } }),
  },
  {
    method: "PUT",
    path: "/api/projects/:slug/quota-ceiling",
    family: "api",
    scope: "admin",
    expect: 200,
    deploymentAdminOnly: true,
    sample: () => ({ params: { slug: "default" }, body: { json: { tokensPerDay: null, usdPerDay: null } } }),
  },
  {
    method: "PUT",
    path: "/api/projects/:slug/test-clock",
    family: "api",
    scope: "admin",
    expect: 200,
    deploymentAdminOnly: true,
    sample: () => ({ params: { slug: "default" }, body: { json: { offsetMs: 0 } } }),
  },
  // ---- messaging gateways (admin config; the Telegram webhook is public and checks its own secret) ----
  {
    method: "PUT",
    path: "/api/agents/:name/gateways/telegram",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({
      params: { name: f.agent },
      body: { json: { botTokenSecret: "TELEGRAM_BOT_TOKEN", approverUserIds: [1] } },
    }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/gateways/telegram",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: async () => ({ params: { name: await withGateway("telegram") } }),
  },
  {
    method: "DELETE",
    path: "/api/agents/:name/gateways/telegram",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async () => ({ params: { name: await withGateway("telegram") } }),
  },
  {
    method: "POST",
    path: "/api/agents/:name/gateways/telegram/webhook",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: async () => ({
      params: { name: await withGateway("telegram") },
      body: { json: { url: "https://bot.example.com/" } },
    }),
  },
  {
    method: "PUT",
    path: "/api/agents/:name/gateways/email",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: (f) => ({ params: { name: f.agent }, body: { json: { allowedSenders: ["ann@example.com"] } } }),
  },
  {
    method: "GET",
    path: "/api/agents/:name/gateways/email",
    family: "api",
    scope: "admin",
    expect: 200,
    sample: async () => ({ params: { name: await withGateway("email") } }),
  },
  {
    method: "DELETE",
    path: "/api/agents/:name/gateways/email",
    family: "api",
    scope: "admin",
    expect: 204,
    sample: async () => ({ params: { name: await withGateway("email") } }),
  },
  {
    method: "POST",
    path: "/gateways/telegram/:project/:agent",
    family: "api",
    scope: "public",
    expect: 401,
    sample: (f) => ({ params: { project: "default", agent: f.agent }, body: { json: { update_id: 1 } } }),
  },
  {
    method: "ALL",
    path: "/gateways/*",
    family: "api",
    scope: "public",
    expect: 404,
    sample: () => ({ method: "GET", params: { "*": "nothing-here" } }),
  },
  // Not found, after auth: any token reaches it.
  {
    method: "ALL",
    path: "/api/*",
    family: "api",
    scope: "admin",
    expect: 404,
    sample: () => ({ method: "GET", params: { "*": "nothing-here" } }),
  },
];
