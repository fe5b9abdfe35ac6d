import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../workers/index";
import { api, createAgent } from "../api/client";

/**
 * A mail the gateway cannot take (over 256 KiB, or MIME it cannot read, such as multiparts nested
 * thousands deep) is refused where the sender's server sees it (`setReject` with the reason) and
 * where the operator does (the gateway's settings keep the last refusal). It used to vanish: the
 * rejection was sent from the agent without being awaited and never reached the mail.
 */
function inbound(from: string, to: string, raw: string) {
  const rejected: string[] = [];
  const replies: unknown[] = [];
  const headers = new Headers();
  for (const line of raw.split("\r\n\r\n")[0]!.split("\r\n"))
    headers.append(line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim());
  const message = {
    from,
    to,
    headers,
    raw: new Response(raw).body!,
    rawSize: new TextEncoder().encode(raw).length,
    setReject: (reason: string) => void rejected.push(reason),
    forward: async () => ({ messageId: "forwarded" }),
    reply: async (reply: unknown) => (replies.push(reply), { messageId: "replied" }),
  };
  return { message: message as unknown as ForwardableEmailMessage, rejected, replies };
}

const plain = (body: string) =>
  [
    "From: Ann <ann@example.com>",
    "To: x",
    "Subject: Hello",
    `Message-ID: <${crypto.randomUUID()}@mail.example.com>`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    body,
  ].join("\r\n");

/** Multiparts nested `levels` deep around one text part. */
function nestedMime(levels: number): string {
  let text = `From: Ann <ann@example.com>\r\nTo: x\r\nSubject: Deep\r\nMessage-ID: <${crypto.randomUUID()}@mail.example.com>\r\nContent-Type: multipart/mixed; boundary=b0\r\n\r\n`;
  for (let i = 0; i < levels; i++) text += `--b${i}\r\nContent-Type: multipart/mixed; boundary=b${i + 1}\r\n\r\n`;
  text += `--b${levels}\r\nContent-Type: text/plain\r\n\r\nWhat is the launch code word?\r\n`;
  for (let i = levels; i >= 0; i--) text += `--b${i}--\r\n`;
  return text;
}

async function deliver(mail: ReturnType<typeof inbound>) {
  await worker.email(mail.message, env as Env);
  return mail;
}

describe("email gateway: refusals are visible", () => {
  it("a mail over 256 KiB is rejected with its size and the limit, and the gateway keeps the refusal; a normal mail is answered", async () => {
    const agent = await createAgent();
    await api(`/api/agents/${agent.name}/gateways/email`, {
      method: "PUT",
      json: { allowedSenders: ["ann@example.com"] },
    });
    const to = `${agent.name}@agents.example.com`;

    const big = await deliver(inbound("ann@example.com", to, plain("x".repeat(300 * 1024))));
    expect(big.rejected).toEqual([
      `the message is ${Math.ceil(big.message.rawSize / 1024)} KiB; this address takes at most 256 KiB`,
    ]);
    expect(big.replies).toEqual([]);
    const view = (await (await api(`/api/agents/${agent.name}/gateways/email`)).json()) as {
      lastRefusal?: { from: string; size: number; reason: string; at: number };
    };
    expect(view.lastRefusal).toMatchObject({
      from: "ann@example.com",
      size: big.message.rawSize,
      reason: big.rejected[0],
    });
    expect(((await (await api(`/api/agents/${agent.name}/runs`)).json()) as { runs: unknown[] }).runs).toEqual([]);

    const small = await deliver(inbound("ann@example.com", to, plain("What is the launch code word?")));
    expect(small.rejected).toEqual([]);
    expect(small.replies).toHaveLength(1);
  });

  it("a mail of multiparts nested 3,000 deep (under 256 KiB) is rejected as unreadable MIME, not lost; 10 levels are read and answered", async () => {
    const agent = await createAgent();
    await api(`/api/agents/${agent.name}/gateways/email`, {
      method: "PUT",
      json: { allowedSenders: ["ann@example.com"] },
    });
    const to = `${agent.name}@agents.example.com`;
    const raw = nestedMime(3_000);
    expect(raw.length).toBeLessThan(256 * 1024);
    const deep = await deliver(inbound("ann@example.com", to, raw));
    expect(deep.rejected).toHaveLength(1);
    expect(deep.rejected[0]).toMatch(/^the message could not be read as MIME: .*nesting depth/);
    expect(deep.replies).toEqual([]);
    const view = (await (await api(`/api/agents/${agent.name}/gateways/email`)).json()) as {
      lastRefusal?: { reason: string };
    };
    expect(view.lastRefusal?.reason).toBe(deep.rejected[0]);

    const shallow = await deliver(inbound("ann@example.com", to, nestedMime(10)));
    expect(shallow.rejected).toEqual([]);
    expect(shallow.replies).toHaveLength(1);
  });
});
