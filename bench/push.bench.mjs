// What push notifications cost a turn: a person's turns with ten subscribed devices against another
// person's with none, alternated on one stack. Each reply notifies its person (no socket open), so
// every turn of the first sends ten pushes; the agent only queues one job for them, and the push
// queue's consumer encrypts and sends off the agent (workers/push-queue.ts). The push service is a
// loopback double that answers 201 and counts what reached it, so the figures show the pushes went.
import { createECDH, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { client, stats, timed } from "./measure.mjs";

const SAMPLES = Number(process.env.BENCH_PUSH_SAMPLES ?? 40);
const WARMUP = 5;
const DEVICES = 10;
const TARGET_RATIO = 1.1;

function startPushService() {
  let taken = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.method === "POST" && req.headers["content-encoding"] === "aes128gcm") taken += 1;
      res.writeHead(201).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        taken: () => taken,
        close: () => (server.closeAllConnections?.(), server.close()),
      }),
    ),
  );
}

/** A device signed in by an invite for `person`, its token. */
async function signIn(server, admin, person) {
  const invite = await admin("/api/invites", { method: "POST", json: { name: person, scope: "chat" } });
  const res = await fetch(`${server.url}/api/invites/redeem`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code: invite.code }),
  });
  if (!res.ok) throw new Error(`redeem answered ${res.status}: ${await res.text()}`);
  return (await res.json()).token;
}

/** @param {{ url: string, token: string } | null} server */
export async function run(server) {
  if (!server) throw new Error("push needs the local stack (run it through bench/run.mjs)");
  const stamp = randomBytes(3).toString("hex");
  const admin = client(server);
  const push = await startPushService();
  try {
    const people = { none: `bench-quiet-${stamp}`, ten: `bench-busy-${stamp}` };
    const tokens = { none: await signIn(server, admin, people.none), ten: "" };
    for (let d = 0; d < DEVICES; d++) {
      const token = await signIn(server, admin, people.ten);
      tokens.ten ||= token;
      const ua = createECDH("prime256v1");
      ua.generateKeys();
      await client({ url: server.url, token })("/api/push/subscriptions", {
        method: "POST",
        json: {
          endpoint: `${push.url}/push/${stamp}-${d}`,
          keys: { p256dh: ua.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") },
        },
      });
    }
    const agents = {};
    for (const kind of ["none", "ten"]) {
      agents[kind] = `bench-push-${kind}-${stamp}`;
      await admin("/api/agents", {
        method: "POST",
        json: {
          name: agents[kind],
          description: "benchmark agent",
          systemPrompt: "You are a benchmark agent. Answer briefly.",
          model: { provider: "openai", name: `bench-push-${stamp}` },
        },
      });
    }
    const restarts = { count: 0 };
    const turn = (kind, i) => async () => {
      const out = await client({ url: server.url, token: tokens[kind] })(`/api/agents/${agents[kind]}/messages`, {
        method: "POST",
        json: { content: `hello, push benchmark message ${i}` },
      });
      if (out.status !== "completed") throw new Error(`turn ${i} ended ${out.status}`);
    };
    const samples = { none: [], ten: [] };
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      // Alternated, so both see the same load; which goes first swaps each round.
      const order = i % 2 ? ["ten", "none"] : ["none", "ten"];
      for (const kind of order) {
        const ms = await timed(turn(kind, i), restarts);
        if (i >= WARMUP) samples[kind].push(ms);
      }
    }
    // The pushes leave after the answer: wait (bounded) for the consumer to have sent them all.
    const expected = DEVICES * (WARMUP + SAMPLES);
    for (let t = 0; t < 120 && push.taken() < expected; t++) await new Promise((r) => setTimeout(r, 250));
    const none = stats(samples.none);
    const ten = stats(samples.ten);
    return {
      title: "push: a turn with ten subscribed devices against one with none",
      rows: [
        { name: "turn p50, 0 devices", figure: none.p50, unit: "ms" },
        { name: "turn p50, 10 devices", figure: ten.p50, unit: "ms" },
        { name: "turn p95, 0 devices", figure: none.p95, unit: "ms" },
        { name: "turn p95, 10 devices", figure: ten.p95, unit: "ms" },
        {
          name: "p50 ratio, 10 devices ÷ 0",
          figure: ten.p50 / none.p50,
          unit: "×",
          target: TARGET_RATIO,
          ok: ten.p50 / none.p50 <= TARGET_RATIO,
        },
        { name: "pushes taken by the push service", figure: push.taken(), unit: `of ${expected}` },
      ],
      notes: [
        `${SAMPLES} turns each after ${WARMUP} warm-up, alternated; ${restarts.count} worker restart(s) retried`,
        "wrangler dev runs the push queue's consumer in the same process as the agents, so its encryption can still compete with a turn here; deployed, it is an invocation of its own",
      ],
    };
  } finally {
    push.close();
  }
}
