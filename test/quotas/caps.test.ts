import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../workers/index";
import { adminToken } from "../api/client";
import { day, quotaProject } from "./helpers";

const traceOf = (run: any): any[] => run.trace ?? run.run?.trace ?? [];

describe("daily caps stop the next model call (workerd, the scripted OpenAI double: 30 tokens a call)", () => {
  it("an agent's token cap is checked before each call of a run, not once per run: the second call is not made", async () => {
    const p = await quotaProject();
    const capped = await p.agent({ limits: { tokensPerDay: 30 } });
    await capped.script([{ toolCalls: [{ name: "clock.now", arguments: {} }] }, { content: "it is noon" }]);
    const { status, body } = await capped.send("what time is it?");
    // The person gets a clear answer, not a 500: the run failed, saying which cap, used/limit, the reset.
    expect(status).toBe(200);
    expect(body.status).toBe("failed");
    expect(body.error).toMatch(
      new RegExp(
        `^daily cap reached: agent '${capped.name}' has used 30 tokens of its 30 tokens per day \\(UTC\\); the cap resets at \\d{4}-\\d\\d-\\d\\dT00:00:00.000Z$`,
      ),
    );
    expect(await capped.calls()).toHaveLength(1);
    const step = traceOf(await capped.run(body.runId)).find((s: any) => s.name === "quota_exceeded");
    expect(step?.data).toMatchObject({ scope: "agent", name: capped.name, limit: "tokensPerDay", used: 30, cap: 30 });

    // Positive control: the same script on an agent without a cap makes both calls and answers.
    const free = await p.agent();
    await free.script([{ toolCalls: [{ name: "clock.now", arguments: {} }] }, { content: "it is noon" }]);
    const ok = await free.send("what time is it?");
    expect(ok.body.status).toBe("completed");
    expect(await free.calls()).toHaveLength(2);
  });

  it("the cap lifts the next UTC day (the test clock moved by the deployment's admin), and spend shows per agent", async () => {
    const p = await quotaProject();
    const agent = await p.agent({ limits: { tokensPerDay: 50 } });
    expect((await agent.send("one")).body.status).toBe("completed");
    expect((await agent.send("two")).body.status).toBe("completed");
    const third = await agent.send("three");
    expect(third.body.status).toBe("failed");
    expect(third.body.error).toContain("has used 60 tokens of its 50 tokens per day");
    expect(await agent.calls()).toHaveLength(2);
    const listed = await p.json(`/api/agents/${agent.name}`);
    expect(listed.body.spend).toMatchObject({ used: { tokens: 60, usd: 0 }, limits: { tokensPerDay: 50 } });

    expect((await p.moveClock(day)).status).toBe(200);
    const tomorrow = await agent.send("four");
    expect(tomorrow.body.status).toBe("completed");
    expect(await agent.calls()).toHaveLength(3);
    expect((await p.json(`/api/agents/${agent.name}`)).body.spend).toMatchObject({ used: { tokens: 30 } });
  });

  it("a USD cap counts the price of the model that answered (gpt-4o-mini: $0.000009 a call)", async () => {
    const p = await quotaProject();
    const agent = await p.agent({ model: "gpt-4o-mini", limits: { usdPerDay: 0.000015 } });
    // The double counts calls by model name, and other tests may call gpt-4o-mini too: count from here.
    const before = (await agent.calls()).length;
    expect((await agent.send("one")).body.status).toBe("completed");
    expect((await agent.send("two")).body.status).toBe("completed");
    const third = await agent.send("three");
    expect(third.body.error).toContain(`agent '${agent.name}' has used $0.000018 of its $0.000015 per day`);
    expect((await agent.calls()).length - before).toBe(2);
    const report = await p.json("/api/quotas");
    const mine = report.body.agents.find((a: any) => a.name === agent.name);
    expect(mine.used.tokens).toBe(60);
    expect(mine.used.usd).toBeCloseTo(0.000018, 9);
  });

  it("a project cap holds across two agents: the third call of the project is refused, whichever agent makes it", async () => {
    const p = await quotaProject();
    const admin = await p.token("admin");
    const set = await p.json("/api/quotas", { method: "PUT", json: { tokensPerDay: 60 }, token: admin });
    expect(set.status).toBe(200);
    expect(set.body.project.effective).toEqual({ tokensPerDay: 60 });
    const a = await p.agent();
    const b = await p.agent();
    expect((await a.send("one")).body.status).toBe("completed");
    expect((await b.send("two")).body.status).toBe("completed");
    const third = await a.send("three");
    expect(third.body.status).toBe("failed");
    expect(third.body.error).toContain(`project '${p.slug}' has used 60 tokens of its 60 tokens per day`);
    const fourth = await b.send("four");
    expect(fourth.body.error).toContain(`project '${p.slug}'`);
    expect((await a.calls()).length + (await b.calls()).length).toBe(2);
    const report = await p.json("/api/quotas");
    expect(report.body.project.used.tokens).toBe(60);

    // Raising the cap (positive control) lets the next call through at once.
    await p.json("/api/quotas", { method: "PUT", json: { tokensPerDay: 1000 }, token: admin });
    expect((await b.send("five")).body.status).toBe("completed");
  });

  it("two agents of one project at once do not overshoot its cap by more than one call", async () => {
    const p = await quotaProject();
    await p.json("/api/quotas", { method: "PUT", json: { tokensPerDay: 150 } });
    const agents = await Promise.all([p.agent(), p.agent(), p.agent()]);
    // Each agent sends four messages one after another; the three agents at the same time.
    await Promise.all(
      agents.map(async (agent) => {
        for (let i = 0; i < 4; i++) await agent.send(`message ${i}`);
      }),
    );
    const made = (await Promise.all(agents.map((a) => a.calls()))).reduce((n, calls) => n + calls.length, 0);
    // 150 tokens are five calls of 30; at most one more may cross the cap.
    expect(made).toBeGreaterThanOrEqual(5);
    expect(made).toBeLessThanOrEqual(6);
  });
});

describe("who sets which cap, and who moves the clock", () => {
  it("the project's admin cannot raise its caps above the deployment's ceiling; the deployment's admin sets the ceiling", async () => {
    const p = await quotaProject();
    const admin = await p.token("admin");
    // Only the deployment's admin sets a ceiling: the project's own admin token is refused.
    const own = await p.json(`/api/projects/${p.slug}/quota-ceiling`, {
      method: "PUT",
      json: { tokensPerDay: 1000 },
      token: admin,
    });
    expect(own.status).toBe(403);
    expect(own.body.error.message).toContain("only the deployment's admin token");
    const ceiling = await p.json(`/api/projects/${p.slug}/quota-ceiling`, {
      method: "PUT",
      json: { tokensPerDay: 1000, usdPerDay: 5 },
    });
    expect(ceiling.status).toBe(200);
    expect(ceiling.body.project.ceiling).toEqual({ tokensPerDay: 1000, usdPerDay: 5 });
    const above = await p.json("/api/quotas", { method: "PUT", json: { tokensPerDay: 5000 }, token: admin });
    expect(above.status).toBe(400);
    expect(above.body.error.message).toBe(
      "tokensPerDay is above the deployment's ceiling for this project: at most 1000: the deployment's ceiling for this project (only the deployment's admin can raise it)",
    );
    // Positive control: within the ceiling, the project's admin sets its caps; the tighter one holds.
    const within = await p.json("/api/quotas", {
      method: "PUT",
      json: { tokensPerDay: 800, usdPerDay: null },
      token: admin,
    });
    expect(within.status).toBe(200);
    expect(within.body.project.own).toEqual({ tokensPerDay: 800 });
    expect(within.body.project.effective).toEqual({ tokensPerDay: 800, usdPerDay: 5 });
    // A chat token reads the spend, and cannot set caps.
    const chat = await p.token("chat");
    expect((await p.json("/api/quotas", { token: chat })).status).toBe(200);
    expect((await p.json("/api/quotas", { method: "PUT", json: { tokensPerDay: 900 }, token: chat })).status).toBe(403);
  });

  it("bad caps get a 400 naming the field", async () => {
    const p = await quotaProject();
    const bad = await p.json("/api/quotas", { method: "PUT", json: { tokensPerDay: -5 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("tokensPerDay");
    const empty = await p.json("/api/quotas", { method: "PUT", json: {} });
    expect(empty.status).toBe(400);
    const unknown = await p.json("/api/quotas", { method: "PUT", json: { dollars: 5 } });
    expect(unknown.status).toBe(400);
  });

  it("a tenant cannot move the clock: a project admin token is refused, and the clock keeps the cap in place", async () => {
    const p = await quotaProject();
    const agent = await p.agent({ limits: { tokensPerDay: 30 } });
    expect((await agent.send("one")).body.status).toBe("completed");
    const admin = await p.token("admin");
    const moved = await p.moveClock(day, admin);
    expect(moved.status).toBe(403);
    expect((await agent.send("two")).body.status).toBe("failed");
    // Another project's admin cannot move this one's either (nor reach it at all).
    const other = await quotaProject();
    const otherAdmin = await other.token("admin");
    const reach = await other.json(`/api/projects/${p.slug}/test-clock`, {
      method: "PUT",
      json: { offsetMs: day },
      token: otherAdmin,
    });
    expect(reach.status).toBe(403);
    // Positive control: the deployment's admin can, and the cap lifts.
    expect((await p.moveClock(day)).status).toBe(200);
    expect((await agent.send("three")).body.status).toBe("completed");
  });

  it("a deployment without PANTHEON_TEST_CLOCK has no clock to move, even for its admin", async () => {
    const p = await quotaProject();
    const request = (target: Env) =>
      worker.fetch!(
        new Request(`https://pantheon.test/api/projects/${p.slug}/test-clock`, {
          method: "PUT",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ offsetMs: day }),
        }) as any,
        target,
        createExecutionContext(),
      );
    const production = await request({ ...env, PANTHEON_TEST_CLOCK: undefined } as Env);
    expect(production.status).toBe(404);
    expect(((await production.json()) as any).error.message).toContain("this deployment has no test clock");
    // Positive control: the same request on the test deployment moves it.
    expect((await request(env as Env)).status).toBe(200);
  });

  it("an agent's caps by the API, and by its script's (limits :tokens-per-day …)", async () => {
    const p = await quotaProject();
    const agent = await p.agent();
    const set = await p.json(`/api/quotas/agents/${agent.name}`, { method: "PUT", json: { tokensPerDay: 30 } });
    expect(set.status).toBe(200);
    expect(set.body.limits).toEqual({ tokensPerDay: 30 });
    expect((await agent.send("one")).body.status).toBe("completed");
    expect((await agent.send("two")).body.status).toBe("failed");
    // Removing it (null) lets the agent call again.
    await p.json(`/api/quotas/agents/${agent.name}`, { method: "PUT", json: { tokensPerDay: null } });
    expect((await agent.send("three")).body.status).toBe("completed");
    const script = `(actor "${agent.name}" (description "spends") (model :provider "openai" :name "${agent.model}") (limits :tokens-per-day 45 :usd-per-day 0.5))`;
    const put = await p.json(`/api/agents/${agent.name}/script`, {
      method: "PUT",
      body: script,
      headers: { "content-type": "text/x-pantheon" },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await p.json(`/api/agents/${agent.name}`)).body.spend.limits).toEqual({ tokensPerDay: 45, usdPerDay: 0.5 });
  });
});
