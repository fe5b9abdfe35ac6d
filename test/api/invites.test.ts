import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../core/auth";
import { newInviteCode } from "../../core/invites";
import { registryStub } from "../../durable-objects/stubs";
import { api, createAgent, uniqueName } from "./client";

const plannerTools = [
  "feature.create",
  "plan.write",
  "plan.read",
  "tasks.sync",
  "task.start",
  "task.discard",
  "status",
  "fs.list",
  "fs.read",
];

async function body(res: Response | Promise<Response>): Promise<any> {
  const r = await res;
  return { http: r.status, ...((await r.json()) as object) };
}

/** An invite made by the admin of `project` (default when not named). */
async function invite(name: string, scope: "chat" | "approve" | "admin", project?: string) {
  return body(
    api("/api/invites", {
      method: "POST",
      json: { name, scope },
      ...(project ? { headers: { "x-pantheon-project": project } } : {}),
    }),
  );
}

/** Opens a sign-in link as a phone would: no bearer token, the project from the link. */
async function redeem(code: string, project = "default", device?: string) {
  return body(
    api("/api/invites/redeem", {
      method: "POST",
      token: null,
      headers: { "x-pantheon-project": project },
      json: { code, ...(device ? { device } : {}) },
    }),
  );
}

/** A feature of a fresh planner with a plan written and not approved yet. */
async function plannedFeature(): Promise<string> {
  const planner = (await createAgent({ name: uniqueName("planner"), runtime: { tools: plannerTools } })).name;
  const name = uniqueName("ppl")
    .replace(/[^a-z0-9-]/g, "")
    .slice(0, 40);
  expect(
    (await api("/api/features", { method: "POST", json: { name, title: "People", orchestrator: planner } })).status,
  ).toBe(201);
  expect(
    (
      await api(`/api/features/${name}/plan`, {
        method: "PUT",
        json: { markdown: "# Plan\n\n## Tasks\n\n1. One — the first task\n" },
      })
    ).status,
  ).toBe(200);
  return name;
}

describe("invites: people sign in by a one-time link", () => {
  it("an invite gives a link whose code signs one device in as the person, once; the token is listed as theirs", async () => {
    const made = await invite("ana", "approve");
    expect(made.http).toBe(201);
    expect(made).toMatchObject({ name: "ana", scope: "approve", usedAt: null, project: "default" });
    expect(made.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(made.link).toBe(`https://pantheon.test/#/join/${made.code}`);
    expect(made.expiresAt - made.createdAt).toBe(24 * 3600 * 1000);
    // Listed while it waits, never with its code.
    const pending = await (await api("/api/invites")).text();
    expect(pending).toContain(made.id);
    expect(pending).not.toContain(made.code);

    const signedIn = await redeem(made.code, "default", "Ana's phone");
    expect(signedIn).toMatchObject({ http: 201, name: "ana", person: "ana", scope: "approve", device: "Ana's phone" });
    expect(signedIn.token).toMatch(/^pt_/);
    expect((await api("/api/agents", { token: signedIn.token })).status).toBe(200);
    const tokens = (await body(api("/api/tokens"))).tokens as any[];
    expect(tokens.find((t) => t.id === signedIn.id)).toMatchObject({
      name: "ana",
      person: "ana",
      device: "Ana's phone",
      scope: "approve",
    });
    expect(JSON.stringify(tokens)).not.toContain(signedIn.token);
    expect(await (await api("/api/invites")).text()).not.toContain(made.id);

    // The same link a second time: refused, and it says the link was used.
    const again = await redeem(made.code);
    expect(again).toMatchObject({ http: 410, error: { code: "gone", details: { reason: "used" } } });
    expect(again.error.message).toMatch(/already used/);

    // Revoking the device's token signs that device out.
    expect((await api(`/api/tokens/${signedIn.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api("/api/agents", { token: signedIn.token })).status).toBe(401);
  });

  it("an expired link answers 410 saying it expired; a fresh one for the same person works", async () => {
    const code = newInviteCode();
    await registryStub(env, "default").createInvite({
      name: "old",
      scope: "chat",
      hash: await sha256Hex(code),
      seconds: -1,
    });
    const expired = await redeem(code);
    expect(expired).toMatchObject({ http: 410, error: { code: "gone", details: { reason: "expired" } } });
    expect(expired.error.message).toMatch(/expired at .*ask for a new one/);
    const fresh = await invite("old", "chat");
    expect((await redeem(fresh.code)).http).toBe(201);
  });

  it("a person's approve token approves a plan in their name; a chat person comments in their name and cannot approve", async () => {
    const feature = await plannedFeature();
    const bea = await redeem((await invite("bea", "chat")).code);
    const ana = await redeem((await invite("ana", "approve")).code);

    const comment = await body(
      api(`/api/features/${feature}/plan/comments`, {
        method: "POST",
        token: bea.token,
        json: { line: 3, body: "Looks right" },
      }),
    );
    expect(comment).toMatchObject({ http: 201, author: "bea" });
    const refused = await body(
      api(`/api/features/${feature}/plan/approve`, { method: "POST", token: bea.token, json: {} }),
    );
    expect(refused.http).toBe(403);
    expect(refused.error.message).toContain("'approve' scope");

    const approved = await body(
      api(`/api/features/${feature}/plan/approve`, { method: "POST", token: ana.token, json: {} }),
    );
    expect(approved).toMatchObject({ http: 200, approved: true, approvedBy: "ana" });
    const plan = await body(api(`/api/features/${feature}/plan`, { token: bea.token }));
    expect(plan).toMatchObject({
      approvedBy: "ana",
      comments: [expect.objectContaining({ author: "bea", body: "Looks right" })],
    });
  });

  it("a person's answer to a blocked task is recorded as theirs; a chat person may not answer", async () => {
    const feature = await plannedFeature();
    expect((await api(`/api/features/${feature}/plan/approve`, { method: "POST", json: {} })).status).toBe(200);
    expect((await api(`/api/features/${feature}/tasks/sync`, { method: "POST" })).status).toBe(200);
    // Task 1 blocked as a conflict would leave it (the feature's own object, as the route fixture does).
    const stub = (env as any).FEATURE_DO.get((env as any).FEATURE_DO.idFromName(`default.${feature}`));
    await stub.beginTask(1, { kind: "person", id: "admin", scope: "admin" });
    expect((await stub.markBlocked(1, "Which folder?", { kind: "agent", name: `${feature}-task-1` })).ok).toBe(true);

    const bea = await redeem((await invite("bea", "chat")).code);
    expect(
      (
        await api(`/api/features/${feature}/tasks/1/answer`, {
          method: "POST",
          token: bea.token,
          json: { answer: "notes/" },
        })
      ).status,
    ).toBe(403);
    const ana = await redeem((await invite("ana", "approve")).code);
    expect(
      (
        await api(`/api/features/${feature}/tasks/1/answer`, {
          method: "POST",
          token: ana.token,
          json: { answer: "notes/" },
        })
      ).status,
    ).toBe(200);
    expect((await stub.answerOf(1, { kind: "agent", name: `${feature}-task-1` })).value).toEqual({
      question: "Which folder?",
      answer: "notes/",
      by: "ana",
    });
  });

  it("a plain token still acts as token:<name>, beside a person", async () => {
    const feature = await plannedFeature();
    const plain = (await body(api("/api/tokens", { method: "POST", json: { name: "h5-chat", scope: "chat" } }))).token;
    const comment = await body(
      api(`/api/features/${feature}/plan/comments`, {
        method: "POST",
        token: plain,
        json: { line: 1, body: "From a pasted token" },
      }),
    );
    expect(comment).toMatchObject({ http: 201, author: "token:h5-chat" });
  });

  it("a person's run approval and message carry their name", async () => {
    const gated = (
      await createAgent({
        name: uniqueName("gated"),
        runtime: { tools: ["clock.now"], approvalRequired: ["clock.now"] },
      })
    ).name;
    const ana = await redeem((await invite("ana", "approve")).code);
    const sent = await body(
      api(`/api/agents/${gated}/messages`, {
        method: "POST",
        token: ana.token,
        json: { content: "/tool clock.now {}" },
      }),
    );
    expect(sent.status).toBe("waiting_approval");
    expect(sent.userMessage).toMatchObject({ name: "ana" });
    const decided = await api(`/api/agents/${gated}/runs/${sent.runId}/approval`, {
      method: "POST",
      token: ana.token,
      json: { decision: "approve" },
    });
    expect(decided.status).toBe(200);
    const run = await body(api(`/api/agents/${gated}/runs/${sent.runId}`));
    expect(run.trace.find((s: any) => s.name === "approval")?.data).toMatchObject({ approved: true, by: "ana" });
    const history = await body(api(`/api/agents/${gated}/messages`, { token: ana.token }));
    expect(history.messages.find((m: any) => m.role === "user")).toMatchObject({
      content: "/tool clock.now {}",
      name: "ana",
    });

    // A chat person cannot decide it (positive control above: ana could).
    const again = await body(
      api(`/api/agents/${gated}/messages`, { method: "POST", json: { content: "/tool clock.now {}" } }),
    );
    const bea = await redeem((await invite("bea", "chat")).code);
    expect(
      (
        await api(`/api/agents/${gated}/runs/${again.runId}/approval`, {
          method: "POST",
          token: bea.token,
          json: { decision: "approve" },
        })
      ).status,
    ).toBe(403);
  });

  it("project b's admin cannot invite into project a, and a's link does not sign into b", async () => {
    const a = `inv-a-${Date.now().toString(36)}`;
    const b = `inv-b-${Date.now().toString(36)}`;
    const bAdmin = (
      await body(
        api("/api/tokens", {
          method: "POST",
          json: { name: "b admin", scope: "admin" },
          headers: { "x-pantheon-project": b },
        }),
      )
    ).token;
    // Positive control: b's admin invites into b.
    expect(
      (
        await api("/api/invites", {
          method: "POST",
          token: bAdmin,
          headers: { "x-pantheon-project": b },
          json: { name: "carl" },
        })
      ).status,
    ).toBe(201);
    await api("/api/agents", { headers: { "x-pantheon-project": a } });
    expect(
      (
        await api("/api/invites", {
          method: "POST",
          token: bAdmin,
          headers: { "x-pantheon-project": a },
          json: { name: "mallory", scope: "admin" },
        })
      ).status,
    ).toBe(401);

    const forA = await invite("dana", "approve", a);
    const wrong = await redeem(forA.code, b);
    expect(wrong.http).toBe(404);
    expect(wrong.error.message).toContain("not valid for this project");
    // The attempt in b did not use a's link up: it still signs into a, and only a.
    const right = await redeem(forA.code, a);
    expect(right).toMatchObject({ http: 201, person: "dana" });
    expect((await api("/api/agents", { token: right.token, headers: { "x-pantheon-project": a } })).status).toBe(200);
    expect((await api("/api/agents", { token: right.token, headers: { "x-pantheon-project": b } })).status).toBe(401);
  });

  it("bad input gets a 400 naming the field; only an admin invites", async () => {
    const issue = async (json: unknown) =>
      (await body(api("/api/invites", { method: "POST", json }))).error?.details?.issues?.[0];
    expect(await issue({ name: "admin" })).toMatchObject({
      path: ["name"],
      message: expect.stringContaining("'admin'"),
    });
    expect(await issue({ name: "token:x" })).toMatchObject({ path: ["name"] });
    expect(await issue({ name: "ana", scope: "root" })).toMatchObject({
      path: ["scope"],
      message: "one of 'chat', 'approve' or 'admin'",
    });
    expect(await issue({ name: "ana", expiresIn: 5 })).toMatchObject({
      path: ["expiresIn"],
      message: "at least 60 seconds",
    });
    const badCode = await redeem("short");
    expect(badCode).toMatchObject({ http: 400, error: { details: { issues: [{ path: ["code"] }] } } });
    expect((await redeem(newInviteCode())).http).toBe(404);

    const approver = await redeem((await invite("eve", "approve")).code);
    expect(
      (await api("/api/invites", { method: "POST", token: approver.token, json: { name: "friend" } })).status,
    ).toBe(403);
    expect((await api("/api/invites", { method: "POST", json: { name: "friend" } })).status).toBe(201);
  });

  it("a withdrawn invite's link no longer works", async () => {
    const made = await invite("gus", "chat");
    expect((await api(`/api/invites/${made.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await redeem(made.code)).http).toBe(404);
    expect((await api(`/api/invites/${made.id}`, { method: "DELETE" })).status).toBe(404);
  });
});
