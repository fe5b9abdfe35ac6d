import { describe, expect, it } from "vitest";
import { compileScript, compileScriptJson, printScript } from "../../core/dsl";
import {
  finishStep,
  initialProgress,
  joinOf,
  questionOf,
  readySteps,
  startStep,
  workflowSchema,
  type Workflow,
  type WorkflowProgress,
} from "../../core/workflows";

const verdict = `(actor "chair"
  (description "Chairs the launch review.")
  (connections "judge-a" "judge-b" "judge-c" "writer")
  (workflow "verdict"
    (step "a" :ask "judge-a" :input "Approve the launch of {{input}}? Answer yes or no.")
    (step "b" :ask "judge-b" :input "Approve the launch of {{input}}? Answer yes or no.")
    (step "c" :ask "judge-c" :input "Approve the launch of {{input}}? Answer yes or no.")
    (step "vote" :join ("a" "b" "c") :policy :majority)
    (step "memo" :fanout ("writer" "judge-a") :policy :critique :rounds 2 :input "Write the memo: the verdict on {{input}} is {{vote}}." :after ("vote"))))`;

describe("workflows in scripts", () => {
  it("a (workflow …) compiles to a graph of steps, prints back to the same script, and goes through JSON unchanged", () => {
    const { script } = compileScript(verdict);
    expect(script.workflows?.[0]).toEqual({
      name: "verdict",
      steps: [
        {
          id: "a",
          kind: "ask",
          agent: "judge-a",
          input: "Approve the launch of {{input}}? Answer yes or no.",
          after: [],
        },
        {
          id: "b",
          kind: "ask",
          agent: "judge-b",
          input: "Approve the launch of {{input}}? Answer yes or no.",
          after: [],
        },
        {
          id: "c",
          kind: "ask",
          agent: "judge-c",
          input: "Approve the launch of {{input}}? Answer yes or no.",
          after: [],
        },
        { id: "vote", kind: "join", policy: "majority", after: ["a", "b", "c"] },
        {
          id: "memo",
          kind: "fanout",
          targets: ["writer", "judge-a"],
          policy: "critique",
          rounds: 2,
          input: "Write the memo: the verdict on {{input}} is {{vote}}.",
          after: ["vote"],
        },
      ],
    });
    expect(compileScript(printScript(script)).script).toEqual(script);
    expect(compileScriptJson(JSON.parse(JSON.stringify(script))).script).toEqual(script);
  });

  it("a step that uses an output it does not wait for, an edge to no step, or a cycle is refused naming the step", () => {
    const issues = (wf: unknown) =>
      workflowSchema.safeParse(wf).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`) ?? [];
    expect(
      issues({
        name: "w",
        steps: [
          { id: "a", kind: "ask", agent: "x", input: "{{b}}" },
          { id: "b", kind: "ask", agent: "y", input: "q" },
        ],
      }),
    ).toEqual(["steps.0: step 'a' uses {{b}} but does not list 'b' in after"]);
    expect(issues({ name: "w", steps: [{ id: "a", kind: "ask", agent: "x", input: "q", after: ["zz"] }] })).toEqual([
      "steps.0.after.0: no step 'zz' (steps: a)",
    ]);
    expect(
      issues({
        name: "w",
        steps: [
          { id: "a", kind: "ask", agent: "x", input: "q", after: ["b"] },
          { id: "b", kind: "ask", agent: "y", input: "q", after: ["a"] },
        ],
      }),
    ).toEqual(["steps: the steps form a cycle: a → b → a"]);
    expect(issues({ name: "w", steps: [{ id: "a", kind: "wait", agent: "x" }] })[0]).toContain(
      "kind: one of ask, fanout, tool, join",
    );
    // The positive control: the script's own workflow is valid.
    expect(issues(compileScript(verdict).script.workflows![0])).toEqual([]);
  });

  it("the kernel starts the three asks together, the join only once all three are done, and fills {{vote}} into the memo's question", () => {
    const wf = compileScript(verdict).script.workflows![0] as Workflow;
    let p: WorkflowProgress = initialProgress(wf);
    expect(readySteps(wf, p).map((s) => s.id)).toEqual(["a", "b", "c"]);
    for (const id of ["a", "b", "c"]) p = startStep(p, id, 1);
    expect(readySteps(wf, p)).toEqual([]);
    p = finishStep(wf, p, "a", { output: "Yes." }, 2);
    p = finishStep(wf, p, "b", { output: "no" }, 2);
    expect(readySteps(wf, p)).toEqual([]);
    p = finishStep(wf, p, "c", { output: "yes" }, 3);
    expect(readySteps(wf, p).map((s) => s.id)).toEqual(["vote"]);
    const vote = joinOf(wf.steps[3] as Extract<Workflow["steps"][number], { kind: "join" }>, p);
    expect(vote).toMatchObject({ ok: true, answer: "Yes." });
    p = finishStep(wf, startStep(p, "vote", 4), "vote", { output: vote.answer }, 4);
    expect(questionOf(wf.steps[4] as Extract<Workflow["steps"][number], { kind: "fanout" }>, "v2.0", p)).toBe(
      "Write the memo: the verdict on v2.0 is Yes..",
    );
    p = finishStep(wf, startStep(p, "memo", 5), "memo", { output: "Memo." }, 6);
    expect(p).toMatchObject({ status: "completed", output: "Memo." });
  });

  it("a failed step fails the workflow and skips the steps that waited for it", () => {
    const wf = compileScript(verdict).script.workflows![0] as Workflow;
    let p = initialProgress(wf);
    for (const id of ["a", "b", "c"]) p = startStep(p, id, 1);
    p = finishStep(wf, p, "b", { error: "agent 'judge-b' did not answer" }, 2);
    expect(p.status).toBe("failed");
    expect(p.error).toBe("step 'b' failed: agent 'judge-b' did not answer");
    expect([p.steps.vote!.state, p.steps.memo!.state, p.steps.a!.state]).toEqual(["skipped", "skipped", "running"]);
  });
});
