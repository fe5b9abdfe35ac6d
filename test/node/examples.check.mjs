// `npm start -- --examples` loads the example agents and the work example (scripts/load-examples.mjs):
// checked against a real `wrangler dev`, then read back the way a person would see it.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { loadExamples } from "../../scripts/load-examples.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";

const { check, finish } = makeChecks();
const token = `examples-${randomBytes(12).toString("hex")}`;
const scratch = await mkdtemp(join(tmpdir(), "pantheon-examples-"));
const server = await startDevServer({ port: await freePort(), token, persistTo: join(scratch, "state") });
const call = makeCall(token);
try {
  const lines = [];
  const results = await loadExamples({ url: server.url, token, log: (line) => lines.push(line) });
  check(
    "every example agent loads",
    results.every((r) => r.ok),
    JSON.stringify(results),
  );
  check(
    "the loader says the work example loaded",
    lines.some((l) => /loaded example feature 'greeting-page' \(1 task\(s\) worked, the rest pending\)/.test(l)),
    lines.join("\n"),
  );
  const feature = await call(server.url, "/api/features/greeting-page");
  check(
    "the example feature is in progress, planned by the planner, its plan approved",
    feature.status === 200 &&
      feature.body.status === "in_progress" &&
      feature.body.orchestrator === "planner" &&
      feature.body.plan?.approved === true,
    JSON.stringify(feature.body),
  );
  const board = await call(server.url, "/api/features/greeting-page/tasks");
  const statuses = board.body?.tasks?.map((t) => `${t.number}:${t.status}`).join(",");
  check(
    "task 1 was worked and committed by its worker; tasks 2 and 3 wait",
    statuses === "1:done,2:pending,3:pending",
    statuses,
  );
  const file = await call(server.url, "/api/features/greeting-page/files/content?path=src/index.html");
  check(
    "the worker's change is in the feature's files",
    file.status === 200 && file.body.content.includes("Greet me"),
    JSON.stringify(file.body),
  );
  const report = await call(server.url, "/api/features/greeting-page/report");
  check(
    "the report has task 1's diff stats and its worker's run",
    report.body?.tasks?.[0]?.diff?.filesChanged === 1 && report.body.tasks[0].runs.length === 1,
    JSON.stringify(report.body?.tasks?.[0]),
  );
  const again = [];
  await loadExamples({ url: server.url, token, log: (line) => again.push(line) });
  check(
    "loading the examples again leaves the feature as it was",
    again.some((l) => /already loaded/.test(l)),
    again.join("\n"),
  );
} finally {
  await server.stop();
  await rm(scratch, { recursive: true, force: true });
}
finish();
