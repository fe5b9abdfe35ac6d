import { SELF } from "cloudflare:test";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { adminToken, api } from "../api/client";
import { httpTool, scriptedAgent } from "../runs/scripted";

/** The real OpenAI SDK with its default retries: a failed run must not be retried into a second one. */
const client = () =>
  new OpenAI({
    apiKey: adminToken,
    baseURL: "https://pantheon.test/v1",
    fetch: (input, init) => SELF.fetch(input as RequestInfo, init as RequestInit),
  });

const ask = (model: string, content: string) => ({ model, messages: [{ role: "user" as const, content }] });

async function runCount(agent: string): Promise<number> {
  return ((await (await api(`/api/agents/${agent}/runs`)).json()) as { runs: unknown[] }).runs.length;
}

describe("run outcomes through /v1/chat/completions", () => {
  it("answers with the reply after the agent used a tool, and streams only the text the agent stored", async () => {
    const agent = await scriptedAgent();
    await agent.script([
      { content: "Let me look at the clock.", toolCalls: [{ name: "clock.now", arguments: {} }] },
      { content: "It is late." },
    ]);
    const answer = await client().chat.completions.create(ask(agent.name, "What time is it?"));
    expect(answer.choices[0]?.message.content).toBe("It is late.");

    await agent.script([{ toolCalls: [{ name: "clock.now", arguments: {} }] }, { content: "Still late." }]);
    const stream = await client().chat.completions.create({ ...ask(agent.name, "And now?"), stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("Still late.");
  });

  it("reports a run that failed as a server_error the SDK does not retry", async () => {
    const agent = await scriptedAgent();
    await agent.script([{ status: 400, error: "model 'x' does not support tools" }]);
    const error = await client()
      .chat.completions.create(ask(agent.name, "hi"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const e = error as InstanceType<typeof OpenAI.APIError>;
    expect(e.status).toBe(502);
    expect(e.type).toBe("server_error");
    expect(e.code).toBe("run_failed");
    expect(e.message).toContain("does not support tools");
    expect(await runCount(agent.name)).toBe(1);
  });

  it("says so in the reply when a tool call waits for a person's approval", async () => {
    const agent = await scriptedAgent({
      httpTools: [httpTool("mail.send", crypto.randomUUID(), { requiresApproval: true })],
    });
    await agent.script([{ toolCalls: [{ name: "mail.send", arguments: { text: "hello boss" } }] }]);
    const answer = await client().chat.completions.create(ask(agent.name, "email the boss"));
    const runs = (
      (await (await api(`/api/agents/${agent.name}/runs`)).json()) as { runs: { id: string; status: string }[] }
    ).runs;
    expect(runs[0]?.status).toBe("waiting_approval");
    expect(answer.choices[0]?.message.content).toBe(
      `Waiting for approval: a tool call in run ${runs[0]?.id} needs a person to approve it (pantheon runs approve ${agent.name} ${runs[0]?.id}).`,
    );
  });
});
