// What the Work-on-a-phone specs share (work-phone-plan.spec.mjs, work-phone-tasks.spec.mjs): the
// planner's tools, the plan of the feature both act on, and the tokens and waits they make through
// the API. Not a *.spec.mjs file, so test/browser/run.mjs does not run it.
//
// The offline model calls a tool when its prompt has a `/tool <name> <json>` line: task 1's worker
// writes notes.md (an uncommitted change), task 2's asks a question (a blocked task), task 3 waits,
// tasks 4 and 5 write the same file (the second to commit conflicts).
import assert from "node:assert/strict";
import { BASE_URL, api } from "./harness.mjs";

/** The tools of the specs' orchestrating agent. */
export const plannerTools = [
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
export const question = "How many login attempts a minute should we allow?";
export const planV1 = [
  "# Login limits",
  "",
  "Limit login attempts.",
  "",
  "## Tasks",
  "",
  "1. Notes — write the notes file",
  '   /tool fs.write {"path":"notes.md","content":"hello from task one\\nsecond line\\n"}',
  "2. Limits — ask a person about the login limit",
  `   /tool task.block {"question":"${question}"}`,
  "3. Docs — write the docs",
  '   /tool fs.write {"path":"docs.md","content":"docs\\n"}',
  "4. Shared A — write the shared file",
  '   /tool fs.write {"path":"shared.md","content":"from A\\n"}',
  "5. Shared B — write the shared file too",
  '   /tool fs.write {"path":"shared.md","content":"from B\\n"}',
  "",
].join("\n");
// v2 rewrites line 3 (its comment is answered) and keeps line 9 (its comment stays open).
export const planV2 = planV1.replace("Limit login attempts.", "Limit login attempts per account and per address.");

/** A fresh token of `scope`, made by the admin. */
export async function tokenOf(name, scope) {
  const res = await api("/api/tokens", { method: "POST", body: JSON.stringify({ name, scope }) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.token;
}

/** The token of a person invited by `name` (the comment author shown by name). */
export async function invited(name, scope) {
  const invite = await api("/api/invites", { method: "POST", body: JSON.stringify({ name, scope }) });
  assert.equal(invite.status, 201, JSON.stringify(invite.body));
  const res = await fetch(`${BASE_URL}/api/invites/redeem`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code: invite.body.code }),
  });
  assert.equal(res.status, 201);
  return (await res.json()).token;
}

/** `api(path, init)` with another token. */
export async function as(token, path, init = {}) {
  return api(path, { ...init, headers: { authorization: `Bearer ${token}` } });
}

/** Polls task `number` of `feature` until `check` holds (200 looks, 100 ms apart), and answers the task. */
export async function taskUntil(feature, number, check, what) {
  let last;
  for (let i = 0; i < 200; i++) {
    last = (await api(`/api/features/${feature}/tasks/${number}`)).body;
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`task ${number} never became ${what}: ${JSON.stringify(last?.status)}`);
}
