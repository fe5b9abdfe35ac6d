import { describe, expect, it } from "vitest";
import { makeMcpServers, needsAuthorisingState, type McpClient } from "../../durable-objects/agent/mcp";

/** A client as the SDK's would answer for one OAuth server in `state` with one tool. */
function fakeClient(state: string): McpClient {
  const unused = () => {
    throw new Error("not used here");
  };
  return {
    connect: unused,
    completeAuthorization: unused,
    remove: async () => undefined,
    servers: () => ({
      servers: {
        notes: {
          name: "notes",
          server_url: "https://notes.example.com/mcp",
          state,
          error: null,
          auth_url: state === "authenticating" ? "https://auth.example.com/authorize?state=x.notes" : null,
        },
      },
      tools: state === "ready" ? [{ serverId: "notes", name: "add", inputSchema: { type: "object" } }] : [],
    }),
    callTool: unused,
    ready: async () => undefined,
    connectionCount: () => 1,
    redactSent: (_serverId, text) => text,
    onToolsChanged: () => undefined,
    onElicitation: () => undefined,
    refreshIfExpiring: async () => "fresh",
    awaitAuthorisation: () => true,
  };
}

function memoryStore(initial: Record<string, unknown> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    get: async <T>(key: string) => data.get(key) as T | undefined,
    put: async <T>(key: string, value: T) => void data.set(key, value),
    delete: async (key: string) => data.delete(key),
    list: async <T>({ prefix }: { prefix: string }) =>
      new Map([...data].filter(([key]) => key.startsWith(prefix)) as [string, T][]),
  };
}

const credentials = {
  check: async () => undefined,
  declare: async () => undefined,
  declared: async () => ({}),
  forget: async () => undefined,
  load: async () => undefined,
};
const serversOf = (client: McpClient, store = memoryStore()) =>
  makeMcpServers(
    client,
    () => ({ allowHosts: ["notes.example.com"] }),
    credentials,
    () => "/callback",
    store,
  );

describe("an MCP server that needs authorising again", () => {
  it("is listed as such with its consent URL, offers no tools, and the run's model is told in a system line", async () => {
    const store = memoryStore({ "pantheon:mcp:reauthorise": { notes: "its token could not be refreshed" } });
    const servers = serversOf(fakeClient("authenticating"), store);
    await servers.ready();
    const [notes] = await servers.list();
    expect(notes).toMatchObject({
      id: "notes",
      state: needsAuthorisingState,
      error: "needs authorising again: its token could not be refreshed",
      authUrl: "https://auth.example.com/authorize?state=x.notes",
    });
    expect(servers.toolSource().late?.(() => false).specs).toEqual([]);
    const notes_ = servers.turnNotes();
    expect(notes_.system).toEqual([
      "The MCP server 'notes' needs authorising again (its token could not be refreshed): its tools are unavailable in this turn. If the request needs them, say so; a person can authorise it again from your tools page in Pantheon.",
    ]);
    expect(notes_.trace).toEqual([
      {
        name: "mcp_unavailable",
        data: { server: "notes", state: needsAuthorisingState, reason: "its token could not be refreshed" },
      },
    ]);
    expect(await servers.needsAuthorising()).toEqual([{ server: "notes", reason: "its token could not be refreshed" }]);
  });

  it("a ready server (the control) is listed ready, offers its tools and adds no line", async () => {
    const servers = serversOf(fakeClient("ready"));
    await servers.ready();
    expect((await servers.list())[0]).toMatchObject({ state: "ready" });
    expect(
      servers
        .toolSource()
        .late?.(() => false)
        .specs.map((s) => s.name),
    ).toEqual(["notes.add"]);
    expect(servers.turnNotes()).toEqual({ trace: [], system: [] });
    expect(await servers.needsAuthorising()).toEqual([]);
  });

  it("a first authorisation (authenticating, never authorised) is not called 'needs authorising again'", async () => {
    const servers = serversOf(fakeClient("authenticating"));
    await servers.ready();
    expect((await servers.list())[0]).toMatchObject({ state: "authenticating", error: null });
    expect(servers.turnNotes().system).toEqual([]);
  });

  it("a server whose token refresh is refused while a turn gets ready becomes one", async () => {
    let state = "ready";
    const client: McpClient = {
      ...fakeClient("ready"),
      servers: () => fakeClient(state).servers(),
      refreshIfExpiring: async () => {
        state = "authenticating";
        return "needs-authorisation";
      },
    };
    const servers = serversOf(client);
    await servers.ready();
    expect((await servers.list())[0]).toMatchObject({ state: needsAuthorisingState });
    expect(servers.turnNotes().system[0]).toContain(
      "'notes' needs authorising again (its token could not be refreshed)",
    );
  });
});
