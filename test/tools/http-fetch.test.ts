import { describe, expect, it } from "vitest";
import { forbiddenRangeOf, makeHttpFetchTool, makeToolRegistry } from "../../core/tools";

function fakeFetch(
  respond: (url: string, init?: RequestInit) => Response = () =>
    new Response("hello", { headers: { "content-type": "text/plain" } }),
) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const fetch = async (url: string, init?: RequestInit) => {
    calls.push({ url, init });
    return respond(url, init);
  };
  return { fetch, calls };
}

function httpTools(
  fetch: (url: string, init?: RequestInit) => Promise<Response>,
  extra: { maxBytes?: number; resolve?: (host: string) => Promise<string[]> } = {},
) {
  const tool = makeHttpFetchTool({ fetch, allowHosts: ["api.example.com", "*.allowed.dev"], ...extra });
  return makeToolRegistry([tool.spec], { [tool.spec.name]: tool.implementation });
}

describe("http.fetch", () => {
  it("fetches an allowlisted public host", async () => {
    const { fetch, calls } = fakeFetch();
    const outcome = await httpTools(fetch).invoke("http.fetch", { url: "https://api.example.com/v1" });
    expect(outcome).toEqual({ ok: true, output: "HTTP 200\ncontent-type: text/plain\n\nhello", truncated: false });
    expect(calls[0]?.url).toBe("https://api.example.com/v1");
    expect(calls[0]?.init?.redirect).toBe("manual");
  });

  const refused: [string, string][] = [
    ["http://127.0.0.1/", "loopback"],
    ["http://127.1.2.3:8080/", "loopback"],
    ["http://2130706433/", "loopback"],
    ["http://0x7f.0.0.1/", "loopback"],
    ["http://[::1]/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://10.1.2.3/", "private"],
    ["http://172.16.0.1/", "private"],
    ["http://172.31.255.255/", "private"],
    ["http://192.168.1.1/", "private"],
    ["http://169.254.169.254/latest/meta-data", "link-local"],
    ["http://100.64.0.1/", "carrier-grade NAT"],
    ["http://0.0.0.0/", "this-network"],
    ["http://[fd00::1]/", "unique-local"],
    ["http://[fe80::1]/", "link-local"],
    ["http://localhost:8787/", "loopback name"],
    ["http://printer.local/", "local network name"],
    ["http://metadata.google.internal/", "internal name"],
    ["http://8.8.8.8/", "IP address 8.8.8.8 is not allowed"],
    ["https://evil.example.org/", "not on this agent's allowlist"],
    ["https://api.example.com.evil.org/", "not on this agent's allowlist"],
    ["https://allowed.dev/", "not on this agent's allowlist"],
    ["file:///etc/passwd", "scheme"],
    ["https://user:pw@api.example.com/", "credentials"],
  ];

  for (const [url, why] of refused) {
    it(`refuses ${url} (${why}) without ever calling fetch`, async () => {
      const { fetch, calls } = fakeFetch();
      const outcome = await httpTools(fetch).invoke("http.fetch", { url });
      expect(outcome.ok).toBe(false);
      expect(outcome.ok === false && outcome.error.message).toContain(why);
      expect(calls).toHaveLength(0);
    });
  }

  it("allows subdomains of a wildcard entry", async () => {
    const { fetch, calls } = fakeFetch();
    expect((await httpTools(fetch).invoke("http.fetch", { url: "https://a.b.allowed.dev/x" })).ok).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it("refuses methods other than GET and POST by schema, before fetching", async () => {
    const { fetch, calls } = fakeFetch();
    const outcome = await httpTools(fetch).invoke("http.fetch", { url: "https://api.example.com/", method: "DELETE" });
    expect(outcome.ok === false && outcome.error.code).toBe("invalid_arguments");
    expect(calls).toHaveLength(0);
  });

  it("refuses an allowlisted name that resolves to a private address", async () => {
    const { fetch, calls } = fakeFetch();
    const outcome = await httpTools(fetch, { resolve: async () => ["93.184.216.34", "10.0.0.7"] }).invoke(
      "http.fetch",
      { url: "https://api.example.com/" },
    );
    expect(outcome.ok === false && outcome.error.message).toBe(
      "refused: api.example.com resolves to 10.0.0.7, in the private range",
    );
    expect(calls).toHaveLength(0);
  });

  it("re-checks every redirect and refuses one that points inside", async () => {
    const { fetch, calls } = fakeFetch((url) =>
      url.includes("api.example.com")
        ? new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest" } })
        : new Response("secret"),
    );
    const outcome = await httpTools(fetch).invoke("http.fetch", { url: "https://api.example.com/go" });
    expect(outcome.ok === false && outcome.error.message).toContain("169.254.169.254 is in the link-local");
    expect(calls.map((c) => c.url)).toEqual(["https://api.example.com/go"]);
  });

  it("follows an allowed redirect, turning a POST into a GET after 303", async () => {
    const { fetch, calls } = fakeFetch((url) =>
      url.endsWith("/submit")
        ? new Response(null, { status: 303, headers: { location: "/done" } })
        : new Response("done"),
    );
    const outcome = await httpTools(fetch).invoke("http.fetch", {
      url: "https://api.example.com/submit",
      method: "POST",
      body: "x=1",
    });
    expect(outcome.ok && outcome.output).toMatch(/^HTTP 200\n.*\n\ndone$/);
    expect(calls.map((c) => [c.url, c.init?.method, c.init?.body])).toEqual([
      ["https://api.example.com/submit", "POST", "x=1"],
      ["https://api.example.com/done", "GET", undefined],
    ]);
  });

  it("cuts a large body at maxBytes and marks the cut", async () => {
    const big = "a".repeat(5000);
    const { fetch } = fakeFetch(() => new Response(big, { headers: { "content-length": "5000" } }));
    const outcome = await httpTools(fetch, { maxBytes: 100 }).invoke("http.fetch", {
      url: "https://api.example.com/big",
    });
    expect(outcome.ok && outcome.output.endsWith(`\n\n${"a".repeat(100)}\n…[truncated: 100 of 5000 bytes shown]`)).toBe(
      true,
    );
  });

  it("stops reading a streamed body of unknown size past maxBytes", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode("b".repeat(64)));
      },
    });
    const { fetch } = fakeFetch(() => new Response(stream));
    const outcome = await httpTools(fetch, { maxBytes: 100 }).invoke("http.fetch", {
      url: "https://api.example.com/stream",
    });
    expect(outcome.ok && outcome.output).toBe(
      `HTTP 200\n\n${"b".repeat(100)}\n…[truncated: 100 of more than 100 bytes shown]`,
    );
    expect(pulled).toBeLessThan(10);
  });
});

describe("address ranges", () => {
  it("treats public addresses as public", () => {
    expect(forbiddenRangeOf("93.184.216.34")).toBeUndefined();
    expect(forbiddenRangeOf("172.32.0.1")).toBeUndefined();
    expect(forbiddenRangeOf("2606:4700::1111")).toBeUndefined();
  });
});
