import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName } from "./client";
import { tenant } from "../secrets/helpers";
import { doubleUrl } from "../runs/scripted";

type Run = {
  id: string;
  passRate: number;
  pass: boolean;
  passed: number;
  cases: number;
  tokens: number;
  costUsd: number | null;
  latencyMs: { p50: number; p95: number };
  results: {
    name: string;
    pass: boolean;
    reason: string;
    verdicts: { grader: string; pass: boolean; reason: string; score?: number }[];
    runId: string;
  }[];
};
type Answer = {
  run: Run;
  comparison: {
    previous: { id: string } | null;
    passRateDelta: number | null;
    changes: { name: string; change: string }[];
  };
};

const evalOf = async (agent: string, suite: unknown, token?: string) => {
  const res = await api(`/api/agents/${agent}/evals`, { method: "POST", json: { suite }, ...(token ? { token } : {}) });
  return {
    status: res.status,
    body: (await res.json()) as Answer & { error?: { message: string; details?: unknown } },
  };
};

const suite = {
  name: "scout basics",
  threshold: 0.75,
  cases: [
    {
      name: "knows the code word",
      input: "What is the code word?",
      expect: [{ contains: "pineapple" }, { regex: "pine\\w+", ignoreCase: true }],
    },
    { name: "reads the clock", input: "/tool clock.now {}", expect: [{ tool: "clock.now" }] },
    { name: "answers in JSON", input: "Give me JSON", expect: [{ schema: { type: "object", required: ["city"] } }] },
    {
      name: "remembers within a session",
      input: "My name is Ana.",
      session: "ana",
      expect: [{ notContains: "error" }],
    },
    { name: "second turn of that session", input: "What is my name?", session: "ana", expect: [{ contains: "Ana" }] },
  ],
};

describe("evals: a suite of cases run against an agent, graded, kept and compared", () => {
  it("grades each case (contains, regex, tool, schema), shares a session only where named, and keeps the run", async () => {
    const agent = await createAgent({ runtime: { tools: ["clock.now"] } });
    const { status, body } = await evalOf(agent.name, suite);
    expect(status).toBe(201);
    const byName = Object.fromEntries(body.run.results.map((r) => [r.name, r]));
    expect(byName["knows the code word"]!.pass).toBe(true);
    expect(byName["reads the clock"]).toMatchObject({ pass: true, reason: "'clock.now' was called" });
    // The offline model writes no JSON: the schema grader says so, and the case fails.
    expect(byName["answers in JSON"]).toMatchObject({ pass: false });
    expect(byName["answers in JSON"]!.reason).toContain("holds no JSON");
    // The second turn sees the first (one session); other cases did not share it.
    expect(byName["second turn of that session"]!.pass).toBe(true);
    expect(body.run).toMatchObject({ cases: 5, passed: 4, passRate: 0.8, pass: true, costUsd: 0 });
    expect(body.run.tokens).toBeGreaterThan(0);
    expect(body.run.latencyMs.p95).toBeGreaterThanOrEqual(body.run.latencyMs.p50);
    expect(body.comparison).toMatchObject({ previous: null, passRateDelta: null });

    // Each case ran in a session of its own (four), named for the suite; the person's default thread is untouched.
    const sessions = (
      (await (await api(`/api/agents/${agent.name}/sessions`)).json()) as { sessions: { title: string }[] }
    ).sessions.map((s) => s.title);
    expect(sessions.filter((t) => t.startsWith("eval scout basics:"))).toHaveLength(4);
    const list = (await (await api(`/api/agents/${agent.name}/evals`)).json()) as {
      runs: { id: string; results?: unknown }[];
    };
    expect(list.runs.map((r) => r.id)).toEqual([body.run.id]);
    expect(list.runs[0]!.results).toBeUndefined();
    const one = (await (await api(`/api/agents/${agent.name}/evals/${body.run.id}`)).json()) as { run: Run };
    expect(one.run.results).toHaveLength(5);
  });

  it("compares a run with the previous one of its suite: what got better, what got worse", async () => {
    const agent = await createAgent({ systemPrompt: "You help with travel." });
    const small = {
      name: "word",
      threshold: 1,
      cases: [
        { name: "code word", input: "What is the code word?", expect: [{ contains: "pineapple" }] },
        { name: "notes", input: "/tool notes.add {}", expect: [{ tool: "notes.add" }] },
      ],
    };
    const first = await evalOf(agent.name, small);
    expect(first.body.run).toMatchObject({ passed: 0, pass: false });
    expect(
      (
        await api(`/api/agents/${agent.name}`, {
          method: "PATCH",
          json: { systemPrompt: "The code word is pineapple." },
        })
      ).status,
    ).toBe(200);
    const second = await evalOf(agent.name, small);
    expect(second.body.run).toMatchObject({ passed: 1, pass: false });
    expect(second.body.comparison).toMatchObject({
      previous: { id: first.body.run.id },
      passRateDelta: 0.5,
      changes: [{ name: "code word", change: "fixed" }],
    });
    expect(
      (await api(`/api/agents/${agent.name}`, { method: "PATCH", json: { systemPrompt: "You help with travel." } }))
        .status,
    ).toBe(200);
    const third = await evalOf(agent.name, small);
    expect(third.body.comparison.changes).toEqual([expect.objectContaining({ name: "code word", change: "broke" })]);
  });

  it("a model judge grades with its rubric through the named model (with the project's key), and an unreadable verdict fails the case", async () => {
    const agent = await createAgent();
    const judgeModel = uniqueName("judge");
    await fetch(`${doubleUrl()}/__script/${judgeModel}`, {
      method: "POST",
      body: JSON.stringify([
        { content: '{"score": 0.9, "reason": "It names the code word politely."}' },
        { content: "I think it is fine" },
      ]),
    });
    const judged = {
      name: "judged",
      judge: { model: `openai:${judgeModel}` },
      threshold: 0.5,
      cases: [
        {
          name: "polite",
          input: "What is the code word?",
          expect: [{ judge: { rubric: "Names the code word and is polite." } }],
        },
        { name: "unreadable", input: "What is the code word?", expect: [{ judge: { rubric: "Anything." } }] },
      ],
    };
    const { body } = await evalOf(agent.name, judged);
    expect(body.run.results[0]).toMatchObject({ pass: true, verdicts: [{ grader: "judge", pass: true, score: 0.9 }] });
    expect(body.run.results[0]!.reason).toContain("It names the code word politely.");
    expect(body.run.results[1]).toMatchObject({ pass: false });
    expect(body.run.results[1]!.reason).toContain("the judge gave no verdict");
    const calls = (await (await fetch(`${doubleUrl()}/__calls/${judgeModel}`)).json()) as {
      messages: { content: string }[];
    }[];
    expect(calls).toHaveLength(2);
    expect(calls[0]!.messages[0]!.content).toContain("Names the code word and is polite.");
    expect(calls[0]!.messages[0]!.content).toContain("pineapple");
  });

  it("refuses a judge naming an unknown provider with a 400 naming it and the known ones, before any case runs; a known one grades", async () => {
    const agent = await createAgent();
    const known = "use one of openai, anthropic, workers-ai, offline or a provider of project 'default'";
    const withJudges = (suiteModel: string | undefined, caseModel: string | undefined) => ({
      name: "judged",
      ...(suiteModel ? { judge: { model: suiteModel } } : {}),
      cases: [
        { name: "plain", input: "hi", expect: [{ notContains: "zzz" }] },
        {
          name: "judged",
          input: "What is the code word?",
          expect: [{ judge: { rubric: "Names the code word.", ...(caseModel ? { model: caseModel } : {}) } }],
        },
      ],
    });
    const suiteWide = await evalOf(agent.name, withJudges("groq:llama-3.1-70b", undefined));
    expect(suiteWide.status).toBe(400);
    expect(suiteWide.body.error!.message).toContain(
      `judge model 'groq:llama-3.1-70b': 'groq' is not a known provider: ${known}`,
    );
    expect(suiteWide.body.error!.details).toMatchObject({ issues: [{ path: ["suite", "judge", "model"] }] });
    const perCase = await evalOf(agent.name, withJudges("openai:gpt-4o-mini", "mistral:large"));
    expect(perCase.status).toBe(400);
    expect(perCase.body.error!.details).toEqual({
      issues: [
        {
          path: ["suite", "cases", 1, "expect", 0, "judge", "model"],
          message: expect.stringContaining(`judge model 'mistral:large': 'mistral' is not a known provider: ${known}`),
        },
      ],
    });
    // Refused before anything ran: no case was sent, no run kept.
    const runs = async () =>
      ((await (await api(`/api/agents/${agent.name}/evals`)).json()) as { runs: unknown[] }).runs;
    expect(await runs()).toEqual([]);
    // The control: a built-in provider as the judge runs the suite and keeps it.
    const offline = await evalOf(agent.name, withJudges(undefined, "offline:judge"));
    expect(offline.status).toBe(201);
    expect(offline.body.run.results.map((r) => r.name)).toEqual(["plain", "judged"]);
    expect(await runs()).toHaveLength(1);
  });

  it("a judge naming one of the project's providers grades through it with its key, though the agent's own model names another", async () => {
    const t = await tenant("eval-judge");
    const key = `pk-${crypto.randomUUID()}`;
    expect((await t.setSecret("JUDGE_KEY", key)).status).toBe(200);
    const put = await t.call(`/api/projects/${t.slug}/providers/judges`, {
      method: "PUT",
      json: { kind: "openai-compatible", baseUrl: `${doubleUrl()}/v1`, keySecret: "JUDGE_KEY" },
    });
    expect(put.status, await put.clone().text()).toBe(200);
    expect((await t.call("/api/agents", { method: "POST", json: { name: "scout" } })).status).toBe(201);
    const judgeModel = uniqueName("judge");
    await fetch(`${doubleUrl()}/__script/${judgeModel}`, {
      method: "POST",
      body: JSON.stringify([{ content: '{"score": 0.8, "reason": "Graded by the project\'s judge."}' }]),
    });
    const res = await t.call("/api/agents/scout/evals", {
      method: "POST",
      json: {
        suite: {
          name: "own judge",
          cases: [
            { name: "judged", input: "hi", expect: [{ judge: { rubric: "Greets.", model: `judges:${judgeModel}` } }] },
          ],
        },
      },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Answer;
    expect(body.run.results[0]).toMatchObject({ pass: true, verdicts: [{ grader: "judge", score: 0.8 }] });
    expect(body.run.results[0]!.reason).toContain("Graded by the project's judge.");
    const calls = (await (await fetch(`${doubleUrl()}/__calls/${judgeModel}`)).json()) as unknown[];
    expect(calls).toHaveLength(1);
    expect(await (await fetch(`${doubleUrl()}/__auth/${judgeModel}`)).json()).toEqual([`Bearer ${key}`]);
  });

  it("refuses a bad suite by its field, an unknown agent with 404 and a chat token with 403; another project sees none of the runs", async () => {
    const agent = await createAgent();
    const duplicate = await evalOf(agent.name, {
      name: "dup",
      cases: [
        { name: "a", input: "x", expect: [{ contains: "x" }] },
        { name: "a", input: "y", expect: [{ contains: "y" }] },
      ],
    });
    expect(duplicate.status).toBe(400);
    expect(JSON.stringify(duplicate.body.error)).toContain("another case is named 'a'");
    const noGrader = await evalOf(agent.name, { name: "none", cases: [{ name: "a", input: "x", expect: [] }] });
    expect(noGrader.status).toBe(400);
    expect(JSON.stringify(noGrader.body.error)).toContain("at least one grader");
    const badGrader = await evalOf(agent.name, {
      name: "bad",
      cases: [{ name: "a", input: "x", expect: [{ sounds: "nice" }] }],
    });
    expect(badGrader.status).toBe(400);
    expect(JSON.stringify(badGrader.body.error)).toContain("a grader is one of");
    expect((await evalOf("nobody-here", suite)).status).toBe(404);

    const a = await tenant("eval-a");
    const b = await tenant("eval-b");
    expect((await a.call("/api/agents", { method: "POST", json: { name: "scout" } })).status).toBe(201);
    const small = { suite: { name: "s", cases: [{ name: "c", input: "hi", expect: [{ notContains: "zzz" }] }] } };
    expect((await a.call("/api/agents/scout/evals", { method: "POST", json: small }, a.chat)).status).toBe(403);
    expect((await a.call("/api/agents/scout/evals", { method: "POST", json: small })).status).toBe(201);
    expect((await a.call("/api/agents/scout/evals", {}, a.chat)).status).toBe(200);
    expect((await b.call("/api/agents/scout/evals")).status).toBe(404);
  });
});
