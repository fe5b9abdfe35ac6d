import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, uniqueName } from "../api/client";
import { device, type Device, notices, payloads, recorded, until } from "./devices";

// A deleted person (every device token of theirs) and a deleted project get nothing more: their
// subscriptions, mutes and records of what waits go with them, and every agent's copy of who has
// a subscribed device forgets them (docs/push.md).

const gatedAgent = (headers?: Record<string, string>) =>
  api("/api/agents", {
    method: "POST",
    headers,
    json: {
      name: uniqueName("gated"),
      runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] },
    },
  }).then(async (res) => {
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { name: string }).name;
  });

const ask = async (agent: string, headers?: Record<string, string>) =>
  (await (
    await api(`/api/agents/${agent}/messages`, { method: "POST", headers, json: { content: "/tool clock.now {}" } })
  ).json()) as { runId: string; status: string };

/** The token ids of a person's devices, as the admin lists them. */
async function tokensOf(person: string, headers?: Record<string, string>): Promise<string[]> {
  const listed = (await (await api("/api/tokens", { headers })).json()) as { tokens: { id: string; person: string }[] };
  return listed.tokens.filter((t) => t.person === person).map((t) => t.id);
}

/** A second device of `d`'s person: signed in by another invite under the same name, subscribed. */
async function secondDevice(d: Device, scope: "approve"): Promise<Device> {
  // A browser's keys, borrowed from a throwaway device of someone else; the device is d's person's.
  const other = await device(scope);
  const invite = (await (await api("/api/invites", { method: "POST", json: { name: d.person, scope } })).json()) as any;
  const redeemed = (await (
    await api("/api/invites/redeem", { method: "POST", token: null, json: { code: invite.code } })
  ).json()) as any;
  const res = await api("/api/push/subscriptions", {
    method: "POST",
    token: redeemed.token,
    json: { ...other.subscription, endpoint: `${other.subscription.endpoint}-2` },
  });
  expect(res.status).toBe(201);
  return { ...other, person: d.person, token: redeemed.token, key: `${other.key}-2` };
}

describe("a deleted person or project gets nothing more", () => {
  it("a person whose every device is signed out gets no more notices, has no subscription or mute left, and agents forget them; control: before, both devices were told", async () => {
    const agent = await gatedAgent();
    const phone = await device("approve");
    const tablet = await secondDevice(phone, "approve");
    const stays = await device("approve");
    expect((await api(`/api/push/mutes/${agent}-other`, { method: "PUT", token: phone.token })).status).toBe(204);

    // Control: the person's two devices are told of an approval.
    const first = await ask(agent);
    for (const d of [phone, tablet])
      await until(
        () => notices(d),
        (n) => n.some((x) => x.tag === `approval:${first.runId}`),
        "the approval notice on each device",
      );

    // The person is deleted: every device token of theirs.
    for (const id of await tokensOf(phone.person))
      expect((await api(`/api/tokens/${id}`, { method: "DELETE" })).status).toBe(204);
    const listed = (await (await api("/api/push/subscriptions")).json()) as any;
    expect(listed.subscriptions.map((s: any) => s.person)).not.toContain(phone.person);
    const stub = env.AGENT_DO.get(env.AGENT_DO.idFromName(`default.${agent}`));
    const kept = await runInDurableObject(stub, (_i, state) => state.storage.kv.get<any>("push:audience")?.people);
    expect(kept[phone.person]).toBeUndefined();
    expect(kept[stays.person]).toBe("approve");

    const before = { phone: (await recorded(phone)).length, tablet: (await recorded(tablet)).length };
    const second = await ask(agent);
    // Sent in the same batch as the one who stays: the deleted person's devices got nothing.
    await until(
      () => notices(stays),
      (n) => n.some((x) => x.tag === `approval:${second.runId}`),
      "the notice of the approver who stays",
    );
    expect((await recorded(phone)).length).toBe(before.phone);
    expect((await recorded(tablet)).length).toBe(before.tablet);

    // Invited again under the same name, the person starts with nothing of theirs: no device, no mute.
    const invite = (await (
      await api("/api/invites", { method: "POST", json: { name: phone.person, scope: "approve" } })
    ).json()) as any;
    const again = (await (
      await api("/api/invites/redeem", { method: "POST", token: null, json: { code: invite.code } })
    ).json()) as any;
    expect(
      ((await (await api("/api/push/subscriptions", { token: again.token })).json()) as any).subscriptions,
    ).toEqual([]);
    expect(((await (await api("/api/push/mutes", { token: again.token })).json()) as any).agents).toEqual([]);
  });

  it("a deleted project's devices get nothing and its registry keeps no subscription or waiting record; control: before, its device was told", async () => {
    const project = uniqueName("pushgone");
    const headers = { "x-pantheon-project": project };
    const agent = await gatedAgent(headers);
    const old = await device("approve", project);
    const waited = await ask(agent, headers);
    expect(waited.status).toBe("waiting_approval");
    const [told] = await until(
      () => payloads(old),
      (p) => p.length === 1,
      "the approval notice before the deletion",
    );
    expect(told).toMatchObject({ tag: `approval:${waited.runId}`, waiting: 1 });

    expect((await api(`/api/projects/${project}`, { method: "DELETE" })).status).toBe(204);
    // Nothing of it is left in its registry: no subscription (not even one hidden by its token's
    // absence) and no record of what waited, which a project made again would count on its badges.
    const registry = env.REGISTRY.get(env.REGISTRY.idFromName(project));
    const left = () =>
      runInDurableObject(registry, (_i, state) => ({
        subscriptions: state.storage.sql.exec("SELECT count(*) AS n FROM push_subscriptions").one().n,
        waits: [...state.storage.kv.list({ prefix: "push:waits:" })].length,
      }));
    expect(await left()).toEqual({ subscriptions: 0, waits: 0 });

    // Made again under its name, with an agent of the same name: the old device hears nothing of it.
    const made = await api("/api/projects", { method: "POST", json: { slug: project } });
    expect(made.status).toBe(201);
    expect(
      (
        await api("/api/agents", {
          method: "POST",
          headers,
          json: { name: agent, runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] } },
        })
      ).status,
    ).toBe(201);
    const fresh = await device("approve", project);
    const now = await ask(agent, headers);
    await until(
      () => notices(fresh),
      (n) => n.some((x) => x.tag === `approval:${now.runId}`),
      "the new approver's notice",
    );
    // The old device was told of the old approval only (its clearing, queued as the agent forgot, may follow).
    expect((await notices(old)).filter((n) => !n.clear).map((n) => n.tag)).toEqual([`approval:${waited.runId}`]);
    expect(await left()).toMatchObject({ subscriptions: 1 });
  });
});
