import { describe, expect, it } from "vitest";
import { api, createAgent, uniqueName } from "../api/client";
import { getJson, putScript } from "./helpers";

const reviewer = (name: string, extra = "") => `; a reviewer
(actor "${name}"
  (role "code reviewer")
  (description "Reviews code changes.")
  (model :provider "offline" :name "offline" :temperature 0.2)
  (tools "clock.now")
  (limits :max-steps 4)
  (gate "no-secrets" :deny-pattern "password" :tool "http.*")
  (talent "review"
    (behavior "reply" :active
      (goal (input) (get input "text"))
      (plan (input ctx) (think)))${extra}))`;

describe("structured input (POST …/messages with `input`)", () => {
  const reviewerOf = (name: string) => `(actor "${name}" (role "code-reviewer")
    (talent "review" (behavior "review-code" :active
      (goal (input) (concat "Review diff for " (get input "repo")))
      (plan (input ctx) (message "assistant" :content (concat "Reviewed " (get input "repo") " at " (get input "text")))))))`;

  it("behaviors read its fields as input, beside or instead of the text; the evaluated goal is in the trace", async () => {
    const name = uniqueName("reviewer");
    expect((await putScript(name, reviewerOf(name))).status).toBe(201);
    const both = await api(`/api/agents/${name}/messages`, {
      method: "POST",
      json: { content: "noon", input: { repo: "pantheon" } },
    });
    expect(both.status).toBe(200);
    const body = (await both.json()) as any;
    expect(body.status).toBe("completed");
    const run = await getJson(`/api/agents/${name}/runs/${body.runId}`);
    const started = run.trace.find((t: any) => t.name === "run_started");
    // The person's words are the request; the behavior's goal is in the trace (and the context), not in their mouth.
    expect(started.data).toMatchObject({ goal: "Review diff for pantheon", message: "noon" });
    expect(started.data.warnings).toBeUndefined();
    const history = (await getJson(`/api/agents/${name}/messages`)).messages.map((m: any) => m.content);
    expect(history).toContain("Reviewed pantheon at noon");

    const only = (await (
      await api(`/api/agents/${name}/messages`, { method: "POST", json: { input: { repo: "workers-sdk" } } })
    ).json()) as any;
    expect(only.status).toBe("completed");
    // Without text, what the person sent is the input itself: stored as they sent it, the goal in the trace.
    expect(only.userMessage.content).toBe('{"repo":"workers-sdk"}');
    const onlyRun = await getJson(`/api/agents/${name}/runs/${only.runId}`);
    expect(onlyRun.trace.find((t: any) => t.name === "run_started").data.goal).toBe("Review diff for workers-sdk");
  });

  it("a field the goal reads that the input lacks is null, with a warning in the trace, not a crash", async () => {
    const name = uniqueName("reviewer");
    expect((await putScript(name, reviewerOf(name))).status).toBe(201);
    const body = (await (
      await api(`/api/agents/${name}/messages`, { method: "POST", json: { content: "hi", input: { rpeo: "typo" } } })
    ).json()) as any;
    expect(body.status).toBe("completed");
    const run = await getJson(`/api/agents/${name}/runs/${body.runId}`);
    const started = run.trace.find((t: any) => t.name === "run_started");
    expect(started.data.goal).toBe("Review diff for ");
    expect(started.data.warnings).toEqual(["input has no 'repo': it read as null"]);
  });

  it("refuses an input that is not a small JSON object, and a message with neither content nor input, naming the field", async () => {
    const agent = await createAgent();
    const post = (json: unknown) => api(`/api/agents/${agent.name}/messages`, { method: "POST", json });
    for (const [json, path] of [
      [{ input: "repo=x" }, "input"],
      [{ input: [1, 2] }, "input"],
      [{ input: { "bad key!": 1 } }, "input"],
      [{ input: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])) }, "input"],
      [{ input: { big: "x".repeat(33_000) } }, "input"],
      [{}, "content"],
    ] as const) {
      const res = await post(json);
      expect(res.status, JSON.stringify(json).slice(0, 80)).toBe(400);
      const error = ((await res.json()) as any).error;
      expect(error.code).toBe("validation_failed");
      expect(JSON.stringify(error.details.issues)).toContain(`"${path}"`);
    }
    expect((await getJson(`/api/agents/${agent.name}/messages`)).messages).toEqual([]);
  });
});

describe("PUT /api/agents/:name/script", () => {
  it("compiles an actor written as the design writes it (a role, no description) verbatim, and says the description was derived", async () => {
    const name = uniqueName("dev-buddy");
    // The design's example, as written there (its elided forms filled with a source): no (description …).
    const source = `(actor "${name}" (role "code-reviewer") (context (source "sessions")) (talent "review" (behavior "review-code" :active (goal (input) (concat "Review diff for " (get input "repo"))) (plan (input ctx) (sequence (tool "git.diff" :args {:repo (get input "repo")}) (tool "code.review" :args {:diff "$prev"}) (message "assistant" :content "Left comments on the PR"))))))`;
    const put = await putScript(name, source);
    expect(put.status).toBe(201);
    expect(put.body.script).toMatchObject({
      name,
      role: "code-reviewer",
      description: `code-reviewer (${name})`,
      derived: { description: "from (role …) and the actor's name" },
    });
    expect(put.body.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ form: "actor", message: expect.stringContaining("no (description") }),
      ]),
    );
    expect((await getJson(`/api/agents/${name}`)).description).toBe(`code-reviewer (${name})`);
    // A description that is written is kept as written, and nothing is said to be derived.
    const written = await putScript(
      name,
      source.replace('(role "code-reviewer")', '(role "code-reviewer") (description "Reviews pull requests.")'),
    );
    expect(written.status).toBe(200);
    expect(written.body.script.description).toBe("Reviews pull requests.");
    expect(written.body.script.derived).toBeUndefined();
  });

  it("creates an agent from a DSL script in one call and derives its profile from the script", async () => {
    const name = uniqueName("scripted");
    const put = await putScript(name, reviewer(name));
    expect(put.status).toBe(201);
    expect(put.body).toMatchObject({ format: "pantheon", warnings: [], script: { name, role: "code reviewer" } });
    const agent = await getJson(`/api/agents/${name}`);
    expect(agent).toMatchObject({
      name,
      description: "Reviews code changes.",
      systemPrompt: `You are ${name}, a code reviewer. Reviews code changes.`,
      model: { provider: "offline", name: "offline", temperature: 0.2 },
      runtime: { tools: ["clock.now"], limits: { maxSteps: 4 }, gates: [{ name: "no-secrets", kind: "deny-pattern" }] },
    });
    const got = await getJson(`/api/agents/${name}/script`);
    expect(got).toEqual({ source: reviewer(name), format: "pantheon", script: put.body.script, warnings: [] });
  });

  it("accepts the ActorScript as JSON and keeps the operator's HTTP tools", async () => {
    const agent = await createAgent({
      runtime: {
        tools: [],
        allowHosts: ["notes.example.com"],
        httpTools: [{ name: "notes.add", description: "Add a note", endpoint: "https://notes.example.com/add" }],
      },
    });
    const script = { name: agent.name, description: "Takes notes", tools: ["notes.add"], talents: [] };
    const put = await putScript(agent.name, script);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      format: "json",
      warnings: [],
      script: { name: agent.name, tools: ["notes.add"] },
    });
    const profile = await getJson(`/api/agents/${agent.name}`);
    expect(profile.runtime.httpTools.map((t: any) => t.name)).toEqual(["notes.add"]);
    expect(profile.description).toBe("Takes notes");
    expect((await getJson(`/api/agents/${agent.name}/script`)).format).toBe("json");
  });

  it("answers 400 with line and column for an invalid script, and the previous script stays active", async () => {
    const name = uniqueName("scripted");
    await putScript(name, reviewer(name));
    const broken = `(actor "${name}"\n  (description "x")\n  (talent "t"\n    (behavior "b" :sometimes (goal (input) "g") (plan (input ctx) (think)))))`;
    const res = await putScript(name, broken);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("script_invalid");
    const issue = res.body.error.details.issues[0];
    expect(issue).toMatchObject({
      line: 4,
      form: expect.any(String),
      expected: expect.any(String),
      found: expect.any(String),
      message: expect.any(String),
    });
    expect(issue.column).toBeGreaterThan(0);
    const still = await getJson(`/api/agents/${name}/script`);
    expect(still.source).toBe(reviewer(name));
    expect((await getJson(`/api/agents/${name}`)).description).toBe("Reviews code changes.");
  });

  it("answers 400 with the JSON path for an invalid JSON script", async () => {
    const name = uniqueName("scripted");
    const res = await putScript(name, { name, description: 5 });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0]).toMatchObject({ line: 0, column: 0, form: "description" });
    expect((await api(`/api/agents/${name}`)).status).toBe(404);
  });

  it("refuses a deny-pattern gate the linear-time engine cannot run, in the DSL and in JSON, naming the gate and why", async () => {
    const name = uniqueName("scripted");
    const dsl = await putScript(
      name,
      `(actor "${name}"\n  (description "x")\n  (gate "no-echo" :deny-pattern "(\\\\w+) \\\\1"))`,
    );
    expect(dsl.status).toBe(400);
    expect(dsl.body.error.code).toBe("script_invalid");
    expect(dsl.body.error.details.issues[0]).toMatchObject({
      line: 3,
      column: 33,
      form: "gate",
      message: 'gate "no-echo": backreferences (\\1, \\k<name>) are not supported: they cannot run in linear time',
    });

    const json = await putScript(name, {
      name,
      description: "x",
      gates: [{ name: "ahead", kind: "deny-pattern", pattern: "key(?=:)" }],
    });
    expect(json.status).toBe(400);
    expect(json.body.error.code).toBe("script_invalid");
    expect(json.body.error.details.issues[0]).toMatchObject({
      line: 0,
      column: 0,
      form: "gates.0.pattern",
      message: "gate 'ahead': lookahead ((?=…), (?!…)) is not supported by the linear-time engine",
    });
    expect((await api(`/api/agents/${name}`)).status).toBe(404);
  });

  it("refuses a script whose actor is another agent, pointing at the actor's name", async () => {
    const name = uniqueName("scripted");
    const res = await putScript(name, `\n(actor "someone-else" (description "x"))`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0]).toMatchObject({ line: 2, column: 8, found: '"someone-else"' });
    expect((await api(`/api/agents/${name}`)).status).toBe(404);
  });

  it("answers 415 for a body that is neither the DSL nor JSON", async () => {
    const name = uniqueName("scripted");
    const res = await putScript(name, reviewer(name), "text/plain");
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe("unsupported_media_type");
  });

  it("compiles a plan that uses an unknown tool, with a warning at the tool", async () => {
    const name = uniqueName("scripted");
    const source = reviewer(
      name,
      `
    (behavior "diff" :passive (every "1h")
      (goal (input) "look")
      (plan (input ctx) (tool "git.diff" :args {:base "main"})))`,
    );
    const put = await putScript(name, source);
    expect(put.status).toBe(201);
    expect(put.body.warnings).toHaveLength(1);
    expect(put.body.warnings[0]).toMatchObject({ line: 15, message: expect.stringContaining("git.diff") });
    expect((await getJson(`/api/agents/${name}/script`)).warnings).toEqual(put.body.warnings);
  });

  it("GET answers 404 for an agent without a script", async () => {
    const agent = await createAgent();
    const res = await api(`/api/agents/${agent.name}/script`);
    expect(res.status).toBe(404);
  });

  it("warns about a DSL connection to an unknown agent or to itself, and leaves both out of the agent's connections", async () => {
    const crm = await createAgent();
    const name = uniqueName("scripted");
    const source = `(actor "${name}"\n  (description "Asks around.")\n  (connections "${crm.name}" "nope"\n               "${name}"))`;
    const put = await putScript(name, source);
    expect(put.status).toBe(201);
    expect(put.body.warnings).toEqual([
      {
        line: 3,
        column: 19 + crm.name.length,
        form: "connections",
        message:
          "no agent named 'nope' in this project; the connection is left out until that agent exists and the script is set again",
      },
      {
        line: 4,
        column: 16,
        form: "connections",
        message: `actor '${name}' cannot be connected to itself; the connection is left out`,
      },
    ]);
    expect(put.body.script.connections).toEqual([crm.name, "nope", name]);
    expect((await getJson(`/api/agents/${name}`)).connections).toEqual([crm.name]);
    expect((await getJson(`/api/agents/${name}/script`)).warnings).toEqual(put.body.warnings);
  });

  it("warns about a JSON connection to an unknown agent or to itself, by JSON path, and leaves both out", async () => {
    const agent = await createAgent();
    const crm = await createAgent();
    const put = await putScript(agent.name, {
      name: agent.name,
      description: "Asks around.",
      connections: [agent.name, crm.name, "nope"],
      talents: [],
    });
    expect(put.status).toBe(200);
    expect(put.body.warnings).toEqual([
      {
        line: 0,
        column: 0,
        form: "connections.0",
        message: `actor '${agent.name}' cannot be connected to itself; the connection is left out`,
      },
      {
        line: 0,
        column: 0,
        form: "connections.2",
        message:
          "no agent named 'nope' in this project; the connection is left out until that agent exists and the script is set again",
      },
    ]);
    expect((await getJson(`/api/agents/${agent.name}`)).connections).toEqual([crm.name]);

    // Once the agent exists, setting the script again connects it, without a warning.
    const nope = await createAgent({ name: uniqueName("nope") });
    const again = await putScript(agent.name, {
      name: agent.name,
      description: "Asks around.",
      connections: [crm.name, nope.name],
      talents: [],
    });
    expect(again.body.warnings).toEqual([]);
    expect((await getJson(`/api/agents/${agent.name}`)).connections).toEqual([crm.name, nope.name]);
  });

  it("PUT /connections refuses the agent itself like an unknown agent", async () => {
    const agent = await createAgent();
    const res = await api(`/api/agents/${agent.name}/connections`, {
      method: "PUT",
      json: { connections: [agent.name] },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({
      code: "validation_failed",
      message: `agent '${agent.name}' cannot be connected to itself`,
      details: {
        issues: [{ path: ["connections", 0], message: `agent '${agent.name}' cannot be connected to itself` }],
      },
    });
  });
});
