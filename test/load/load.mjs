// The load test (`npm run test:load`): many concurrent conversations over several agents, for a
// fixed time, against `wrangler dev` on loopback with the scripted model double (provider openai,
// answering at once). Reports throughput, latency percentiles and errors, then proves that every
// accepted message is in its agent's history exactly once, with exactly one reply after it.
//   LOAD_CONVERSATIONS (200)  LOAD_AGENTS (20)  LOAD_SECONDS (30)
// The Node checks (`npm test`) run it small: test/node/load.check.mjs.
import { pathToFileURL } from "node:url";
import { startBenchServer } from "../../bench/run.mjs";

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;

/**
 * @param {{ conversations: number, agents: number, seconds: number }} size
 * @returns {Promise<{ report: Record<string, number>, problems: string[] }>}
 */
export async function runLoad({ conversations, agents, seconds }) {
  const stack = await startBenchServer();
  try {
    const headers = { authorization: `Bearer ${stack.token}`, "content-type": "application/json" };
    const call = async (path, init = {}) => {
      const res = await fetch(`${stack.url}${path}`, { ...init, headers });
      const body = await res.json().catch(() => null);
      return { status: res.status, body };
    };
    const names = Array.from({ length: agents }, (_, i) => `load-${i}`);
    for (const name of names) {
      const created = await call("/api/agents", {
        method: "POST",
        body: JSON.stringify({
          name,
          description: "Load test agent",
          systemPrompt: "Answer briefly.",
          model: { provider: "openai", name: `load-model-${name}` },
        }),
      });
      if (created.status !== 201)
        throw new Error(`creating ${name}: ${created.status} ${JSON.stringify(created.body)}`);
    }
    const convs = [];
    for (let i = 0; i < conversations; i++) {
      const agent = names[i % agents];
      const session = await call(`/api/agents/${agent}/sessions`, {
        method: "POST",
        body: JSON.stringify({ title: `load ${i}` }),
      });
      if (session.status !== 201) throw new Error(`session ${i}: ${session.status}`);
      convs.push({ agent, session: session.body.id, accepted: [], errors: 0 });
    }

    const latencies = [];
    const errorsByStatus = new Map();
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      convs.map(async (conv, i) => {
        for (let n = 0; performance.now() < until; n++) {
          const content = `conversation ${i} message ${n}`;
          const t0 = performance.now();
          try {
            const res = await call(`/api/agents/${conv.agent}/messages`, {
              method: "POST",
              body: JSON.stringify({ content, session: conv.session }),
            });
            if (res.status === 200 && res.body?.status === "completed") {
              latencies.push(performance.now() - t0);
              conv.accepted.push(content);
            } else {
              conv.errors += 1;
              errorsByStatus.set(res.status, (errorsByStatus.get(res.status) ?? 0) + 1);
              // A refused message must not be in history; remembered so the check can say so.
              (conv.refused ??= []).push(content);
            }
          } catch (_error) {
            conv.errors += 1;
            errorsByStatus.set("network", (errorsByStatus.get("network") ?? 0) + 1);
          }
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;

    // Afterwards: each accepted message once in its session, each followed by exactly one reply.
    const problems = [];
    for (const [i, conv] of convs.entries()) {
      const history = [];
      let cursor;
      do {
        const page = await call(
          `/api/agents/${conv.agent}/messages?session=${conv.session}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        if (page.status !== 200) throw new Error(`history of conversation ${i}: ${page.status}`);
        history.push(...page.body.messages);
        cursor = page.body.nextCursor ?? undefined;
      } while (cursor);
      history.sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0) || 0);
      const users = history.filter((m) => m.role === "user");
      const replies = history.filter((m) => m.role === "assistant");
      for (const content of conv.accepted) {
        const count = users.filter((m) => m.content === content).length;
        if (count !== 1) problems.push(`conversation ${i}: "${content}" is in history ${count} times`);
      }
      for (const content of conv.refused ?? []) {
        if (users.some((m) => m.content === content))
          problems.push(`conversation ${i}: refused "${content}" is in history`);
      }
      if (users.length !== conv.accepted.length)
        problems.push(`conversation ${i}: ${users.length} user messages in history, ${conv.accepted.length} accepted`);
      if (replies.length !== conv.accepted.length)
        problems.push(`conversation ${i}: ${replies.length} replies for ${conv.accepted.length} accepted messages`);
    }
    latencies.sort((a, b) => a - b);
    const accepted = convs.reduce((n, c) => n + c.accepted.length, 0);
    const errors = convs.reduce((n, c) => n + c.errors, 0);
    const report = {
      conversations,
      agents,
      seconds: Number(elapsed.toFixed(1)),
      accepted,
      errors,
      turnsPerSecond: Number((accepted / elapsed).toFixed(1)),
      p50: Math.round(percentile(latencies, 50)),
      p95: Math.round(percentile(latencies, 95)),
      p99: Math.round(percentile(latencies, 99)),
    };
    if (errorsByStatus.size) report.errorsByStatus = Object.fromEntries(errorsByStatus);
    return { report, problems };
  } finally {
    await stack.stop();
  }
}

/** Prints the report and the check's "N passed, N failed" line; exits non-zero on a problem. */
export function printLoad({ report, problems }) {
  console.log(
    `load: ${report.conversations} conversations over ${report.agents} agents for ${report.seconds} s: ${report.accepted} turns (${report.turnsPerSecond}/s), ` +
      `p50 ${report.p50} ms, p95 ${report.p95} ms, p99 ${report.p99} ms, ${report.errors} errors${report.errorsByStatus ? ` ${JSON.stringify(report.errorsByStatus)}` : ""}`,
  );
  for (const problem of problems.slice(0, 20)) console.log(`  problem: ${problem}`);
  const checks = [report.accepted > 0, report.errors === 0, problems.length === 0];
  if (!checks[0]) console.log("  problem: no message was accepted");
  if (!checks[1]) console.log("  problem: some messages were refused or failed");
  const failed = checks.filter((ok) => !ok).length;
  console.log(`${checks.length - failed} passed, ${failed} failed`);
  return failed === 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const size = {
    conversations: Number(process.env.LOAD_CONVERSATIONS ?? 200),
    agents: Number(process.env.LOAD_AGENTS ?? 20),
    seconds: Number(process.env.LOAD_SECONDS ?? 30),
  };
  const ok = printLoad(await runLoad(size));
  process.exit(ok ? 0 : 1);
}
