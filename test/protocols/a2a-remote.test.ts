// An agent connected to a remote A2A agent (declared by an admin in its runtime) asks it through
// `ask_<name>`; the remote is a double built from the A2A SDK's own server classes on loopback.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName, type ErrorBody } from "../api/client";

const a2aUrl = (env as unknown as { A2A_TEST_URL: string }).A2A_TEST_URL;
const a2aHost = new URL(a2aUrl).hostname;

/** A tenant of the remote double of its own: its base URL and what it received. */
function remote(prefix = "tenant") {
  const tenant = uniqueName(prefix);
  const calls = async () =>
    (await (await fetch(`${a2aUrl}/__calls?tenant=${tenant}`)).json()) as {
      text: string;
      authorization: string | null;
    }[];
  return { url: `${a2aUrl}/t/${tenant}`, calls };
}

async function chat(agent: string, content: string) {
  const res = await api(`/api/agents/${agent}/messages`, { method: "POST", json: { content } });
  expect(res.status).toBe(200);
  return (await res.json()) as { runId: string; status: string; reply: { content: string } | null };
}

const toolResult = async (agent: string, runId: string) =>
  ((
    (await (await api(`/api/agents/${agent}/runs/${runId}`)).json()) as { trace: { name: string; data: any }[] }
  ).trace.find((s) => s.name === "tool_result")?.data ?? null) as {
    ok: boolean;
    output?: string;
    error?: string;
  } | null;

describe("a remote A2A agent as an ask_<name> tool", () => {
  it("is asked through the A2A client with the declared secret header, and its answer comes back as the tool's result", async () => {
    const { url, calls } = remote();
    const agent = await createAgent({
      runtime: {
        allowHosts: [a2aHost],
        a2aAgents: [
          {
            name: "echo",
            url,
            description: "Echoes from another system",
            headers: { authorization: { secret: "AIRTABLE_KEY" } },
          },
        ],
      },
    });
    const tools = (
      (await (await api(`/api/agents/${agent.name}/tools`)).json()) as {
        tools: { name: string; description: string; runtime: string }[];
      }
    ).tools;
    expect(tools.find((t) => t.name === "ask_echo")).toMatchObject({
      runtime: "http",
      description: expect.stringContaining("Echoes from another system"),
    });

    const turn = await chat(agent.name, '/tool ask_echo {"question":"hello over there"}');
    expect(turn.status).toBe("completed");
    expect(turn.reply?.content).toContain("remote echo: hello over there");
    expect(await calls()).toEqual([{ text: "hello over there", authorization: "secret-airtable-value-123" }]);
    // The secret reached the remote agent and nothing else: the run's record never shows it.
    const record = await (await api(`/api/agents/${agent.name}/runs/${turn.runId}`)).text();
    expect(record).not.toContain("secret-airtable-value-123");
  });

  it("tells the model when the remote agent needs more input, and fails the call when the remote task failed", async () => {
    const { url } = remote();
    const agent = await createAgent({ runtime: { allowHosts: [a2aHost], a2aAgents: [{ name: "echo", url }] } });
    const waiting = await chat(agent.name, '/tool ask_echo {"question":"I need input"}');
    expect((await toolResult(agent.name, waiting.runId))?.output).toContain("needs more input before it can finish");
    expect((await toolResult(agent.name, waiting.runId))?.output).toContain("which city do you mean?");

    const failed = await chat(agent.name, '/tool ask_echo {"question":"please fail"}');
    const result = await toolResult(agent.name, failed.runId);
    expect(result?.ok).toBe(false);
    expect(result?.error).toContain("the remote agent gave up");
  });

  it("is refused when declared with a host off the allowlist or an undeclared secret, naming the field", async () => {
    const { url } = remote();
    const offList = await api("/api/agents", {
      method: "POST",
      json: { name: uniqueName(), runtime: { a2aAgents: [{ name: "echo", url }] } },
    });
    expect(offList.status).toBe(400);
    const body = (await offList.json()) as ErrorBody;
    expect(body.error.details?.issues?.[0]).toMatchObject({
      path: ["runtime", "a2aAgents", 0, "url"],
      message: expect.stringContaining(`add "${a2aHost}" to runtime.allowHosts`),
    });

    const secret = await api("/api/agents", {
      method: "POST",
      json: {
        name: uniqueName(),
        runtime: {
          allowHosts: [a2aHost],
          a2aAgents: [{ name: "echo", url, headers: { authorization: { secret: "OPENAI_API_KEY" } } }],
        },
      },
    });
    expect(secret.status).toBe(400);
    expect(((await secret.json()) as ErrorBody).error.details?.issues?.[0]?.path).toEqual([
      "runtime",
      "a2aAgents",
      0,
      "headers",
      "authorization",
      "secret",
    ]);

    const badName = await api("/api/agents", {
      method: "POST",
      json: { name: uniqueName(), runtime: { allowHosts: [a2aHost], a2aAgents: [{ name: "Echo Agent", url }] } },
    });
    expect(badName.status).toBe(400);
  });

  it("does not follow a card to an endpoint whose host is off the allowlist", async () => {
    const { url, calls } = remote("elsewhere");
    const agent = await createAgent({ runtime: { allowHosts: [a2aHost], a2aAgents: [{ name: "echo", url }] } });
    const turn = await chat(agent.name, '/tool ask_echo {"question":"are you there?"}');
    const result = await toolResult(agent.name, turn.runId);
    expect(result?.ok).toBe(false);
    expect(result?.error).toContain("refused");
    expect(await calls()).toEqual([]);
  });

  it("can only be declared by an admin", async () => {
    const made = await api("/api/tokens", { method: "POST", json: { name: "chat", scope: "chat" } });
    const { token } = (await made.json()) as { token: string };
    const agent = await createAgent();
    const res = await api(`/api/agents/${agent.name}`, {
      method: "PATCH",
      token,
      json: { runtime: { allowHosts: [a2aHost], a2aAgents: [{ name: "echo", url: remote().url }] } },
    });
    expect(res.status).toBe(403);
  });
});
