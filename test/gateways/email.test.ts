import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import PostalMime from "postal-mime";
import worker from "../../workers/index";
import { api, createAgent } from "../api/client";
import { httpTool, scriptedAgent, toolCalls } from "../runs/scripted";

/** A ForwardableEmailMessage as Email Routing hands it to the worker's `email` handler, recording rejections and replies. */
function inbound(options: {
  from: string;
  to: string;
  subject?: string;
  body?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string;
  extraHeaders?: string[];
}) {
  const messageId = options.messageId ?? `<${crypto.randomUUID()}@mail.example.com>`;
  const raw = [
    `From: Ann <${options.from}>`,
    `To: ${options.to}`,
    `Subject: ${options.subject ?? "Hello"}`,
    `Message-ID: ${messageId}`,
    ...(options.inReplyTo ? [`In-Reply-To: ${options.inReplyTo}`] : []),
    ...(options.references ? [`References: ${options.references}`] : []),
    ...(options.extraHeaders ?? []),
    "Content-Type: text/plain; charset=utf-8",
    "",
    options.body ?? "What is the launch code word?",
  ].join("\r\n");
  const rejected: string[] = [];
  const replies: { from: string; to: string; raw: string }[] = [];
  const headers = new Headers();
  for (const line of raw.split("\r\n\r\n")[0]!.split("\r\n"))
    headers.append(line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim());
  const message = {
    from: options.from,
    to: options.to,
    headers,
    raw: new Response(raw).body!,
    rawSize: raw.length,
    setReject: (reason: string) => void rejected.push(reason),
    forward: async () => ({ messageId: "forwarded" }),
    reply: async (reply: { from: string; to: string; raw?: unknown }) => {
      // cloudflare:email's EmailMessage (Miniflare's, locally) keeps the MIME text under "EmailMessage::raw".
      const body = (reply as Record<string, unknown>)["EmailMessage::raw"] ?? reply.raw;
      const text = typeof body === "string" ? body : await new Response(body as ReadableStream).text();
      replies.push({ from: reply.from, to: reply.to, raw: text });
      return { messageId: "replied" };
    },
  };
  return { message: message as unknown as ForwardableEmailMessage, rejected, replies, messageId };
}

async function deliver(mail: ReturnType<typeof inbound>) {
  await worker.email(mail.message, env as Env);
  return mail;
}

describe("email gateway (Email Routing through the agents SDK)", () => {
  it("an allowlisted sender's mail becomes a run in the thread's session, and the reply goes back to the sender", async () => {
    const agent = await createAgent();
    const put = await api(`/api/agents/${agent.name}/gateways/email`, {
      method: "PUT",
      json: { allowedSenders: ["Ann@Example.com", "@team.example.com"], fromName: "Scout" },
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({
      allowedSenders: ["ann@example.com", "@team.example.com"],
      fromName: "Scout",
      address: `${agent.name}@<your Email Routing domain>`,
    });

    const first = await deliver(
      inbound({
        from: "ann@example.com",
        to: `${agent.name}@agents.example.com`,
        subject: "Launch",
        body: "What is the launch code word?",
      }),
    );
    expect(first.rejected).toEqual([]);
    expect(first.replies).toHaveLength(1);
    expect(first.replies[0]).toMatchObject({ from: `${agent.name}@agents.example.com`, to: "ann@example.com" });
    const reply = await PostalMime.parse(first.replies[0]!.raw);
    expect(reply.subject).toBe("Re: Launch");
    expect(reply.inReplyTo).toBe(first.messageId);
    expect(reply.references).toBe(first.messageId);
    expect(reply.from?.name).toBe("Scout");
    expect(reply.text).toContain("pineapple");

    // A reply to the agent's reply (threaded by In-Reply-To only) stays in the same session.
    const replyId = reply.messageId;
    const second = await deliver(
      inbound({
        from: "bob@team.example.com",
        to: `${agent.name}@agents.example.com`,
        subject: "Re: Launch",
        body: "Thanks!\n\nOn Mon, Scout wrote:\n> pineapple",
        inReplyTo: replyId,
      }),
    );
    expect(second.replies).toHaveLength(1);
    const sessions = ((await (await api(`/api/agents/${agent.name}/sessions`)).json()) as any).sessions.filter(
      (s: any) => s.title.startsWith("Email"),
    );
    expect(sessions).toHaveLength(1);
    expect(sessions[0].title).toBe("Email: Launch");
    const history = ((await (await api(`/api/agents/${agent.name}/messages?session=${sessions[0].id}`)).json()) as any)
      .messages;
    const asked = history.filter((m: any) => m.role === "user").map((m: any) => m.content);
    expect(asked).toContain("Launch\n\nWhat is the launch code word?");
    expect(asked).toContain("Thanks!");

    // A new mail without thread headers starts its own session.
    await deliver(inbound({ from: "ann@example.com", to: `${agent.name}@agents.example.com`, subject: "Other topic" }));
    const after = ((await (await api(`/api/agents/${agent.name}/sessions`)).json()) as any).sessions.filter((s: any) =>
      s.title.startsWith("Email"),
    );
    expect(after).toHaveLength(2);
  });

  it("a behavior reads the mail's sender and subject as its input", async () => {
    const agent = await createAgent();
    const script = `(actor "${agent.name}" (role "triager") (talent "t" (behavior "triage" :active (goal (input) (get input "subject"))
      (plan (input ctx) (message "assistant" :content (concat "Filed '" (get input "subject") "' from " (get input "from") " (" (get input "channel") ")"))))))`;
    expect(
      (
        await api(`/api/agents/${agent.name}/script`, {
          method: "PUT",
          headers: { "content-type": "text/x-pantheon" },
          body: script,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api(`/api/agents/${agent.name}/gateways/email`, {
          method: "PUT",
          json: { allowedSenders: ["ann@example.com"] },
        })
      ).status,
    ).toBe(200);
    const mail = await deliver(
      inbound({
        from: "ann@example.com",
        to: `${agent.name}@agents.example.com`,
        subject: "Printer on fire",
        body: "Third floor.",
      }),
    );
    const reply = await PostalMime.parse(mail.replies[0]!.raw);
    expect(reply.text?.trim()).toBe("Filed 'Printer on fire' from ann@example.com (email)");
  });

  it("refuses strangers, unknown agents, agents without the gateway, other projects and auto-replies", async () => {
    const agent = await createAgent();
    const bare = await createAgent();
    await api(`/api/agents/${agent.name}/gateways/email`, {
      method: "PUT",
      json: { allowedSenders: ["ann@example.com"] },
    });

    const stranger = await deliver(inbound({ from: "eve@evil.example", to: `${agent.name}@agents.example.com` }));
    expect(stranger.rejected).toEqual(["the sender is not allowed to write to this agent"]);
    expect(stranger.replies).toEqual([]);
    for (const to of [
      `nobody-here@agents.example.com`,
      `${bare.name}@agents.example.com`,
      `${agent.name}+other@agents.example.com`,
      "not an address",
      `${agent.name}+a+b@x.example`,
    ]) {
      const mail = await deliver(inbound({ from: "ann@example.com", to }));
      expect(mail.rejected).toEqual(["unknown recipient"]);
      expect(mail.replies).toEqual([]);
    }
    const auto = await deliver(
      inbound({
        from: "ann@example.com",
        to: `${agent.name}@agents.example.com`,
        extraHeaders: ["Auto-Submitted: auto-replied"],
      }),
    );
    expect(auto.rejected).toEqual([]);
    expect(auto.replies).toEqual([]);
    expect(((await (await api(`/api/agents/${agent.name}/runs`)).json()) as any).runs).toEqual([]);
  });

  it("a run that needs approval says so in the reply and waits for a person: gates apply as for any message", async () => {
    const key = crypto.randomUUID();
    const agent = await scriptedAgent({ httpTools: [httpTool("mail.send", key, { requiresApproval: true })] });
    await agent.script([{ toolCalls: [{ name: "mail.send", arguments: { text: "hi" } }] }, { content: "Done." }]);
    await api(`/api/agents/${agent.name}/gateways/email`, {
      method: "PUT",
      json: { allowedSenders: ["ann@example.com"] },
    });
    const mail = await deliver(
      inbound({ from: "ann@example.com", to: `${agent.name}@agents.example.com`, body: "send the mail" }),
    );
    expect((await PostalMime.parse(mail.replies[0]!.raw)).text).toContain("needs a person's approval first");
    expect(await toolCalls(key)).toHaveLength(0);
    const runs = ((await (await api(`/api/agents/${agent.name}/runs`)).json()) as any).runs;
    expect(runs[0].status).toBe("waiting_approval");
  });

  it("the admin API validates the allowlist with the field's path", async () => {
    const agent = await createAgent();
    const empty = await api(`/api/agents/${agent.name}/gateways/email`, {
      method: "PUT",
      json: { allowedSenders: [] },
    });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as any).error.details.issues[0].path).toEqual(["allowedSenders"]);
    const bad = await api(`/api/agents/${agent.name}/gateways/email`, {
      method: "PUT",
      json: { allowedSenders: ["ann@example.com", "not-an-address"] },
    });
    expect(((await bad.json()) as any).error.details.issues[0].path).toEqual(["allowedSenders", 1]);
    expect((await api(`/api/agents/${agent.name}/gateways/email`)).status).toBe(404);
    expect((await api(`/api/agents/${agent.name}/gateways/email`, { method: "DELETE" })).status).toBe(404);
  });
});
