import { describe, expect, it } from "vitest";
import { checkOutboundUrl, makeGuardedFetch, OutboundRefused, outboundSettingsFrom } from "../../core/tools";

const reason = (url: string, allowHosts: string[], privateHosts?: string[]) => {
  const check = checkOutboundUrl(url, allowHosts, privateHosts ? { privateHosts } : {});
  return check.ok ? "ok" : check.reason;
};

describe("private hosts the deployment admin names (PANTHEON_OUTBOUND_PRIVATE_HOSTS)", () => {
  it("open a named private host, and only that one", () => {
    const allow = ["git.corp.internal", "other.corp.internal", "gitea"];
    expect(reason("https://git.corp.internal/acme/app.git", allow)).toBe(
      "git.corp.internal is not a public host (internal name)",
    );
    expect(reason("https://git.corp.internal/acme/app.git", allow, ["git.corp.internal"])).toBe("ok");
    expect(reason("https://other.corp.internal/x.git", allow, ["git.corp.internal"])).toBe(
      "other.corp.internal is not a public host (internal name)",
    );
    expect(reason("http://gitea:3000/acme/app.git", allow, ["gitea"])).toBe("ok");
    expect(reason("http://gitea:3000/acme/app.git", allow)).toBe("gitea is not a public host (single-label name)");
  });

  it("open a named private address, and not its neighbour", () => {
    expect(reason("http://10.0.0.12/acme/app.git", ["10.0.0.12", "10.0.0.13"])).toBe(
      "10.0.0.12 is in the private range",
    );
    expect(reason("http://10.0.0.12/acme/app.git", ["10.0.0.12", "10.0.0.13"], ["10.0.0.12"])).toBe("ok");
    expect(reason("http://10.0.0.13/acme/app.git", ["10.0.0.12", "10.0.0.13"], ["10.0.0.12"])).toBe(
      "10.0.0.13 is in the private range",
    );
  });

  it("never open loopback, the metadata service or this network, named or not", () => {
    const named = ["169.254.169.254", "127.0.0.1", "localhost", "metadata.google.internal", "0.0.0.0"];
    expect(reason("http://169.254.169.254/latest", named, named)).toBe(
      "169.254.169.254 is in the link-local (cloud metadata) range",
    );
    expect(reason("http://127.0.0.1:9000/x.git", named, named)).toBe("127.0.0.1 is in the loopback range");
    expect(reason("http://localhost/x.git", named, named)).toBe("localhost is not a public host (loopback name)");
    expect(reason("http://metadata.google.internal/", named, named)).toBe(
      "metadata.google.internal is not a public host (internal name)",
    );
    expect(reason("http://0.0.0.0/", named, named)).toBe("0.0.0.0 is in the this-network range");
  });

  it("still need the host on the allowlist", () => {
    expect(reason("https://git.corp.internal/a.git", ["api.github.com"], ["git.corp.internal"])).toBe(
      "host git.corp.internal is not on this agent's allowlist",
    );
  });

  it("are exact names: a wildcard in the variable opens nothing", () => {
    const { privateHosts } = outboundSettingsFrom({
      PANTHEON_OUTBOUND_PRIVATE_HOSTS: "Git.Corp.Internal, *.corp.internal 10.0.0.12",
    });
    expect(privateHosts).toEqual(["git.corp.internal", "10.0.0.12"]);
    expect(reason("https://ci.corp.internal/", ["ci.corp.internal"], ["*.corp.internal"])).toBe(
      "ci.corp.internal is not a public host (internal name)",
    );
    expect(outboundSettingsFrom({}).privateHosts).toEqual([]);
  });

  it("pass through the guarded fetch (git remotes, MCP servers) as the settings say", async () => {
    const settings = outboundSettingsFrom({ PANTHEON_OUTBOUND_PRIVATE_HOSTS: "git.corp.internal" });
    const reached: string[] = [];
    const guarded = makeGuardedFetch(
      async (input) => {
        reached.push(new Request(input).url);
        return new Response("ok");
      },
      () => ({ allowHosts: ["git.corp.internal", "wiki.corp.internal"], ...settings }),
    );
    expect(await (await guarded("https://git.corp.internal/info/refs")).text()).toBe("ok");
    await expect(guarded("https://wiki.corp.internal/")).rejects.toBeInstanceOf(OutboundRefused);
    expect(reached).toEqual(["https://git.corp.internal/info/refs"]);
  });
});
