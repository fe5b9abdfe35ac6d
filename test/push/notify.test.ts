import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, createAgent } from "../api/client";
import { device, notices, payloads, pushService, recorded, until } from "./devices";

// What notifies, end to end in workerd: people signed in by invite subscribe their device against a
// push-service double (test/doubles/push-service.ts); each push is decrypted here with the
// subscription's private key and its VAPID JWT checked (audience, expiry, signature).

describe("push notifications", () => {
  it("an approval waiting notifies the people who may decide it, never a chat-scope person nor another project's", async () => {
    const gated = await createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
    const approver = await device("approve");
    const chatter = await device("chat");
    const elsewhere = await device("admin", "push-elsewhere");
    const run = (await (
      await api(`/api/agents/${gated.name}/messages`, { method: "POST", json: { content: "/tool clock.now {}" } })
    ).json()) as any;
    expect(run.status).toBe("waiting_approval");
    const [notice] = await until(
      () => notices(approver),
      (n) => n.length > 0,
      "the approval notice",
    );
    expect(notice).toEqual({
      title: `${gated.name} asks to use clock.now`,
      body: "An approval waits for you.",
      url: `/#/agents/${gated.name}/runs/${run.runId}`,
      tag: `approval:${run.runId}`,
    });
    // Sent in the same batch as the approver's: a chat-scope person and another project's admin got nothing.
    expect(await recorded(chatter)).toEqual([]);
    expect(await recorded(elsewhere)).toEqual([]);

    // Answered on one device, it clears on every device that was told.
    const callId = ((await (await api(`/api/agents/${gated.name}/runs/${run.runId}`)).json()) as any).run.pending[0]
      .callId;
    await api(`/api/agents/${gated.name}/runs/${run.runId}/approval`, {
      method: "POST",
      json: { callId, decision: "approve" },
      token: approver.token,
    });
    const both = await until(
      () => notices(approver),
      (n) => n.length > 1,
      "the clearing notice",
    );
    expect(both[1]).toMatchObject({ tag: `approval:${run.runId}`, clear: true });
  });

  it("an approval answered after the agent was evicted still clears its notice on every device", async () => {
    const gated = await createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
    const phone = await device("approve");
    const laptop = await device("admin");
    const run = (await (
      await api(`/api/agents/${gated.name}/messages`, { method: "POST", json: { content: "/tool clock.now {}" } })
    ).json()) as any;
    for (const d of [phone, laptop])
      await until(
        () => notices(d),
        (n) => n.length === 1,
        "the approval notice",
      );
    // Drop the live instance: what it kept in memory is gone, the next request builds a new one.
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${gated.name}`));
    await expect(runInDurableObject(stub, (_instance, state) => state.abort("test: evict"))).rejects.toThrow("evict");
    const callId = ((await (await api(`/api/agents/${gated.name}/runs/${run.runId}`)).json()) as any).run.pending[0]
      .callId;
    const answered = await api(`/api/agents/${gated.name}/runs/${run.runId}/approval`, {
      method: "POST",
      json: { callId, decision: "approve" },
      token: phone.token,
    });
    expect(answered.status, await answered.clone().text()).toBeLessThan(300);
    for (const d of [phone, laptop]) {
      const got = await until(
        () => notices(d),
        (n) => n.length === 2,
        "the clearing notice",
      );
      expect(got[1]).toEqual({ title: "", body: "", url: "/", tag: `approval:${run.runId}`, clear: true });
    }
  });

  it("a revoked device gets nothing more, and a push service's 410 removes the subscription", async () => {
    const gated = await createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
    const kept = await device("approve");
    const revoked = await device("approve");
    const expired = await device("approve", "default", true);
    const listed = (await (await api("/api/push/subscriptions")).json()) as any;
    const revokedTokenId = listed.subscriptions.find((s: any) => s.person === revoked.person).tokenId;
    expect((await api(`/api/tokens/${revokedTokenId}`, { method: "DELETE" })).status).toBe(204);

    await api(`/api/agents/${gated.name}/messages`, { method: "POST", json: { content: "/tool clock.now {}" } });
    await until(
      () => notices(kept),
      (n) => n.length === 1,
      "the kept device's notice",
    );
    await until(
      () => recorded(expired),
      (r) => r.length === 1,
      "the push the service refused as gone",
    );
    expect(await recorded(revoked)).toEqual([]);
    const after = (await (await api("/api/push/subscriptions")).json()) as any;
    await until(
      async () =>
        ((await (await api("/api/push/subscriptions")).json()) as any).subscriptions.map((s: any) => s.person),
      (people: string[]) => !people.includes(expired.person),
      "the gone subscription removed",
    );
    expect(after.subscriptions.map((s: any) => s.person)).toContain(kept.person);
    expect(after.subscriptions.map((s: any) => s.person)).not.toContain(revoked.person);
  });

  it("the reply to a person's message notifies them while no socket of theirs is open, and not while one is", async () => {
    const agent = await createAgent();
    const ana = await device("chat");
    // With the chat open on her device: the reply comes over the socket, no push.
    const open = await api(`/agents/agent-do/default.${agent.name}?token=${ana.token}`, {
      token: null,
      headers: { upgrade: "websocket" },
    });
    expect(open.status).toBe(101);
    open.webSocket!.accept();
    await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "first, while I look" },
      token: ana.token,
    });
    open.webSocket!.close();
    // Control: closed, the next reply is pushed to her — and only that one.
    const second = (await (
      await api(`/api/agents/${agent.name}/messages`, {
        method: "POST",
        json: { content: "second, phone locked" },
        token: ana.token,
      })
    ).json()) as any;
    const got = await until(
      () => notices(ana),
      (n) => n.length > 0,
      "the reply notice",
    );
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ title: `${agent.name} replied`, tag: `reply:${second.sessionId}` });
    expect(got[0].body.length).toBeLessThanOrEqual(120);
    expect(got[0].url).toBe(`/#/agents/${agent.name}/chat?session=${second.sessionId}`);
  });

  it("a person who muted the agent gets nothing from it; control: the unmuted one does", async () => {
    const agent = await createAgent();
    const muted = await device("chat");
    const control = await device("chat");
    expect((await api(`/api/push/mutes/${agent.name}`, { method: "PUT", token: muted.token })).status).toBe(204);
    expect(((await (await api("/api/push/mutes", { token: muted.token })).json()) as any).agents).toEqual([agent.name]);
    await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "hello from the muted one" },
      token: muted.token,
    });
    await api(`/api/agents/${agent.name}/messages`, {
      method: "POST",
      json: { content: "hello from the other" },
      token: control.token,
    });
    await until(
      () => notices(control),
      (n) => n.length === 1,
      "the control's reply notice",
    );
    expect(await recorded(muted)).toEqual([]);
  });

  it("a subscription is refused for an endpoint that is not a push service, and for a token that is no person's", async () => {
    const d = await device("chat");
    const bad = await api("/api/push/subscriptions", {
      method: "POST",
      token: d.token,
      json: { ...d.subscription, endpoint: "https://internal.example.com/hook" },
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("endpoint must be a browser's push service");
    const admin = await api("/api/push/subscriptions", { method: "POST", json: d.subscription });
    expect(admin.status).toBe(403);
    // A person lists their own devices; another person's id answers as missing.
    const mine = ((await (await api("/api/push/subscriptions", { token: d.token })).json()) as any).subscriptions;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ person: d.person, service: new URL(pushService).host });
    expect(JSON.stringify(mine)).not.toContain(d.key);
    const other = await device("chat");
    expect((await api(`/api/push/subscriptions/${mine[0].id}`, { method: "DELETE", token: other.token })).status).toBe(
      404,
    );
    expect((await api(`/api/push/subscriptions/${mine[0].id}`, { method: "DELETE", token: d.token })).status).toBe(204);
  });

  it("each agent is told who has a subscribed device when a device subscribes and when it is removed", async () => {
    const agent = await createAgent();
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent.name}`));
    const kept = () =>
      runInDurableObject(stub, (_instance, state) => state.storage.kv.get<any>("push:audience")?.people ?? {});
    const d = await device("approve");
    // Before the subscription's answer: the agent's next turn already counts the device.
    expect((await kept())[d.person]).toBe("approve");
    const mine = ((await (await api("/api/push/subscriptions", { token: d.token })).json()) as any).subscriptions;
    expect((await api(`/api/push/subscriptions/${mine[0].id}`, { method: "DELETE", token: d.token })).status).toBe(204);
    expect((await kept())[d.person]).toBeUndefined();
  });

  it("each push carries how many things wait for its person: one more per approval waiting, one less once answered; none for a chat-scope person", async () => {
    const gated = await createAgent({ runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } });
    const approver = await device("approve");
    const chatter = await device("chat");
    const ask = async () =>
      (await (
        await api(`/api/agents/${gated.name}/messages`, { method: "POST", json: { content: "/tool clock.now {}" } })
      ).json()) as any;
    const first = await ask();
    await ask();
    const two = await until(
      () => payloads(approver),
      (p) => p.length === 2,
      "both approvals' notices",
    );
    const counts = two.map((p) => p.waiting).sort((a, b) => a - b);
    expect(counts[1]).toBe(counts[0] + 1);
    const callId = ((await (await api(`/api/agents/${gated.name}/runs/${first.runId}`)).json()) as any).run.pending[0]
      .callId;
    await api(`/api/agents/${gated.name}/runs/${first.runId}/approval`, {
      method: "POST",
      json: { callId, decision: "reject" },
      token: approver.token,
    });
    const three = await until(
      () => payloads(approver),
      (p) => p.length === 3,
      "the clearing notice",
    );
    expect(three[2]).toMatchObject({ tag: `approval:${first.runId}`, clear: true, waiting: counts[1] - 1 });
    // A chat-scope person may decide none of them: the reply to their message counts nothing waiting.
    await api(`/api/agents/${gated.name}/messages`, {
      method: "POST",
      json: { content: "hello" },
      token: chatter.token,
    });
    const [reply] = await until(
      () => payloads(chatter),
      (p) => p.length === 1,
      "the chatter's reply notice",
    );
    expect(reply.waiting).toBe(0);
  });
});
