import { describe, expect, it } from "vitest";
import { runtimeOutboundIssues } from "../../core/agents";
import {
  checkOutboundUrl,
  declaredToolSecrets,
  makeGuardedFetch,
  outboundSettingsFrom,
  toolSecretRefusal,
} from "../../core/tools";

describe("the outbound guard's loopback override", () => {
  const loopback = [
    "http://127.0.0.1:8080/mcp",
    "http://127.9.9.9/",
    "http://[::1]:9000/",
    "http://localhost:8787/",
    "http://[::ffff:127.0.0.1]/",
  ];
  const hostsOf = (url: string) => [new URL(url).hostname.replace(/^\[|\]$/g, "")];

  it("is off by default: loopback is refused even when the host is on the allowlist", () => {
    for (const url of loopback) {
      const check = checkOutboundUrl(url, hostsOf(url));
      expect(check.ok, url).toBe(false);
      expect(!check.ok && check.reason, url).toMatch(/loopback/);
    }
  });

  it("when on, lets loopback through, but only for a host on the allowlist", () => {
    for (const url of loopback) {
      expect(checkOutboundUrl(url, hostsOf(url), { allowLoopback: true }).ok, url).toBe(true);
      expect(checkOutboundUrl(url, ["api.example.com"], { allowLoopback: true }), url).toMatchObject({
        ok: false,
        reason: expect.stringContaining("not on this agent's allowlist"),
      });
    }
  });

  const stillRefused: [string, string][] = [
    ["http://10.0.0.1/", "10.0.0.1 is in the private range"],
    ["http://172.16.0.1/", "172.16.0.1 is in the private range"],
    ["http://192.168.1.1/", "192.168.1.1 is in the private range"],
    ["http://169.254.169.254/latest/meta-data", "169.254.169.254 is in the link-local (cloud metadata) range"],
    ["http://[::ffff:169.254.169.254]/", "::ffff:a9fe:a9fe is in the link-local (cloud metadata) range"],
    ["http://0.0.0.0:8080/", "0.0.0.0 is in the this-network range"],
    ["http://100.64.0.1/", "100.64.0.1 is in the carrier-grade NAT range"],
    ["http://[fd00::1]/", "fd00::1 is in the unique-local range"],
    ["http://[fe80::1]/", "fe80::1 is in the link-local range"],
    [
      "http://metadata.google.internal/computeMetadata/v1/",
      "metadata.google.internal is not a public host (internal name)",
    ],
    ["http://metadata/", "metadata is not a public host (cloud metadata name)"],
    ["http://app.localhost/", "app.localhost is not a public host (loopback name)"],
    ["http://printer.local/", "printer.local is not a public host (local network name)"],
  ];

  for (const [url, reason] of stillRefused) {
    it(`still refuses ${url} with the override on, even when it is on the allowlist`, () => {
      expect(
        checkOutboundUrl(url, [...hostsOf(url), "metadata", "metadata.google.internal"], { allowLoopback: true }),
      ).toEqual({ ok: false, reason });
    });
  }

  it("names the host to add when only the allowlist is missing it", () => {
    expect(checkOutboundUrl("https://hooks.example.com/x", [])).toEqual({
      ok: false,
      reason: "host hooks.example.com is not on this agent's allowlist",
      host: "hooks.example.com",
    });
    expect(checkOutboundUrl("http://10.0.0.1/", [])).not.toHaveProperty("host");
  });
});

describe("the deployment's outbound settings", () => {
  it("are off and empty unless set, and the override needs exactly 'true'", () => {
    expect(outboundSettingsFrom({})).toEqual({ toolSecrets: [], allowLoopback: false, privateHosts: [] });
    expect(outboundSettingsFrom({ PANTHEON_TOOL_SECRETS: "", PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "false" })).toEqual({
      toolSecrets: [],
      allowLoopback: false,
      privateHosts: [],
    });
    expect(outboundSettingsFrom({ PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "1" }).allowLoopback).toBe(false);
    expect(outboundSettingsFrom({ PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" }).allowLoopback).toBe(true);
  });

  it("declare tool secrets by name; Pantheon's own, the model keys and malformed names are left out", () => {
    expect(
      declaredToolSecrets(
        " AIRTABLE_KEY,GITHUB_TOKEN ,, PANTHEON_ADMIN_TOKEN,OPENAI_API_KEY,ANTHROPIC_API_KEY,lower_case,AIRTABLE_KEY",
      ),
    ).toEqual(["AIRTABLE_KEY", "GITHUB_TOKEN"]);
    expect(declaredToolSecrets(undefined)).toEqual([]);
  });

  it("say why a secret is refused, listing what tools may use", () => {
    expect(toolSecretRefusal("AIRTABLE_KEY", ["AIRTABLE_KEY"])).toBeUndefined();
    expect(toolSecretRefusal("GITHUB_TOKEN", ["AIRTABLE_KEY"])).toBe(
      "secret 'GITHUB_TOKEN' is not declared for tools (PANTHEON_TOOL_SECRETS); tools may use: AIRTABLE_KEY",
    );
    expect(toolSecretRefusal("PANTHEON_ADMIN_TOKEN", ["AIRTABLE_KEY"])).toBe(
      "secret 'PANTHEON_ADMIN_TOKEN' is Pantheon's own and never reaches a tool; tools may use: AIRTABLE_KEY",
    );
    expect(toolSecretRefusal("ANTHROPIC_API_KEY", [])).toBe(
      "secret 'ANTHROPIC_API_KEY' is a model key and never reaches a tool; no secrets are declared for tools (PANTHEON_TOOL_SECRETS is empty)",
    );
  });
});

describe("configuration checks of an agent's HTTP tools", () => {
  const tool = (endpoint: string, headers: Record<string, string | { secret: string }> = {}) => ({
    name: "notes.add",
    description: "d",
    parameters: {},
    endpoint,
    headers,
    requiresApproval: false,
    idempotent: false,
  });
  const settings = { toolSecrets: ["AIRTABLE_KEY"], allowLoopback: false };

  it("accept a declared secret and an endpoint whose host is on the allowlist", () => {
    expect(
      runtimeOutboundIssues(
        {
          allowHosts: ["hooks.example.com"],
          httpTools: [
            tool("https://hooks.example.com/a", { "X-Key": { secret: "AIRTABLE_KEY" }, Accept: "application/json" }),
          ],
        },
        settings,
      ),
    ).toEqual([]);
  });

  it("name every refused field: undeclared secrets, hosts off the allowlist, private endpoints", () => {
    const issues = runtimeOutboundIssues(
      {
        allowHosts: ["hooks.example.com"],
        httpTools: [
          tool("https://other.example.com/a", { "X-Key": { secret: "PANTHEON_ADMIN_TOKEN" } }),
          tool("http://10.0.0.5/hook"),
        ],
      },
      settings,
    );
    expect(issues).toEqual([
      {
        path: ["httpTools", 0, "endpoint"],
        message: `HTTP tool 'notes.add': host other.example.com is not on this agent's allowlist; add "other.example.com" to runtime.allowHosts`,
      },
      {
        path: ["httpTools", 0, "headers", "X-Key", "secret"],
        message:
          "HTTP tool 'notes.add': secret 'PANTHEON_ADMIN_TOKEN' is Pantheon's own and never reaches a tool; tools may use: AIRTABLE_KEY",
      },
      {
        path: ["httpTools", 1, "endpoint"],
        message: "HTTP tool 'notes.add': endpoint refused: 10.0.0.5 is in the private range",
      },
    ]);
  });
});

describe("the guarded fetch (MCP transports)", () => {
  type Seen = { url: string; method: string; redirect: string; auth: string | null };
  function fakeFetch(respond: (url: string) => Response) {
    const seen: Seen[] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      seen.push({
        url: request.url,
        method: request.method,
        redirect: request.redirect,
        auth: request.headers.get("authorization"),
      });
      return respond(request.url);
    };
    return { fetch, seen };
  }
  const policy = () => ({ allowHosts: ["mcp.example.com", "other.example.com"] });
  const redirectTo = (location: string, status = 302) => new Response(null, { status, headers: { location } });

  it("refuses a URL the guard refuses before any request", async () => {
    const { fetch, seen } = fakeFetch(() => new Response("ok"));
    const guarded = makeGuardedFetch(fetch, policy);
    await expect(guarded("http://169.254.169.254/latest/meta-data")).rejects.toThrow(
      "refused: 169.254.169.254 is in the link-local (cloud metadata) range",
    );
    await expect(guarded(new Request("https://evil.example.org/mcp", { method: "POST", body: "{}" }))).rejects.toThrow(
      "refused: host evil.example.org is not on this agent's allowlist",
    );
    expect(seen).toEqual([]);
  });

  it("never lets the platform follow a redirect: manual callers get the 3xx, followed hops pass the guard", async () => {
    const { fetch, seen } = fakeFetch((url) =>
      url.endsWith("/mcp") ? redirectTo("http://10.0.0.1/steal") : new Response("ok"),
    );
    const guarded = makeGuardedFetch(fetch, policy);
    const manual = await guarded("https://mcp.example.com/mcp", { method: "POST", body: "{}", redirect: "manual" });
    expect(manual.status).toBe(302);
    await expect(guarded("https://mcp.example.com/mcp", { method: "POST", body: "{}" })).rejects.toThrow(
      "refused: 10.0.0.1 is in the private range",
    );
    expect(seen.map((s) => `${s.method} ${s.url} ${s.redirect}`)).toEqual([
      "POST https://mcp.example.com/mcp manual",
      "POST https://mcp.example.com/mcp manual",
    ]);
  });

  it("follows allowed hops by hand, dropping credentials when the origin changes", async () => {
    const { fetch, seen } = fakeFetch((url) =>
      url.endsWith("/mcp") ? redirectTo("https://other.example.com/next", 307) : new Response("ok"),
    );
    const response = await makeGuardedFetch(fetch, policy)("https://mcp.example.com/mcp", {
      method: "POST",
      body: "{}",
      headers: { authorization: "Bearer t" },
    });
    expect(await response.text()).toBe("ok");
    expect(seen).toEqual([
      { url: "https://mcp.example.com/mcp", method: "POST", redirect: "manual", auth: "Bearer t" },
      { url: "https://other.example.com/next", method: "POST", redirect: "manual", auth: null },
    ]);
  });

  it("reads the policy at each request, so a host removed from the allowlist is refused from then on", async () => {
    let allowHosts = ["mcp.example.com"];
    const { fetch, seen } = fakeFetch(() => new Response("ok"));
    const guarded = makeGuardedFetch(fetch, () => ({ allowHosts }));
    expect((await guarded("https://mcp.example.com/mcp")).ok).toBe(true);
    allowHosts = [];
    await expect(guarded("https://mcp.example.com/mcp")).rejects.toThrow("not on this agent's allowlist");
    expect(seen).toHaveLength(1);
  });
});
