// `npm start` as a newcomer runs it, in a fresh copy of the checkout: every slow step shows
// progress, the banner comes only once the server answers, and two servers side by side (another
// PORT) each have their own embeddings sidecar, so stopping the first leaves the second's memory
// embedding. Also: `npm install` under scripts/with-node22.sh shows progress instead of silence
// (npm itself replaced by a slow stand-in: no registry here), and a PORT in use is refused at once.
// Prints `N passed, N failed`.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { freePort } from "../../scripts/dev-server.mjs";
import { runWithProgress, startProgress } from "../../scripts/progress.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";
import { freshCopy } from "./fresh-copy.mjs";

const { check, finish } = makeChecks();
const copy = freshCopy("pantheon-start-");
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };

/** `npm start` in the copy, its output kept line by line with the time each line came. */
function npmStart(port) {
  const child = spawn("npm", ["start"], {
    cwd: copy.dir,
    env: { ...env, PORT: String(port) },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines = [];
  let text = "";
  const onData = (chunk) => {
    text += chunk;
    for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(line);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  return {
    lines,
    text: () => text,
    exited,
    /** Resolves when a line matches (or the process ends, or the time is up) to its index, or -1. */
    async waitFor(pattern, timeoutMs = 300_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && child.exitCode === null) {
        const index = lines.findIndex((line) => pattern.test(line));
        if (index >= 0) return index;
        await new Promise((r) => setTimeout(r, 100));
      }
      return lines.findIndex((line) => pattern.test(line));
    },
    /** Ctrl-C, as a person stops it: SIGINT to the whole process group. */
    async stop() {
      if (child.exitCode !== null) return;
      try {
        process.kill(-child.pid, "SIGINT");
      } catch {}
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }, 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function answers(url, init = {}, timeoutMs = 5000) {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return res.status;
  } catch {
    return 0;
  }
}

// The progress line itself, on a terminal and off one.
{
  const written = [];
  const stream = { isTTY: true, write: (s) => written.push(s) };
  const progress = startProgress("waiting for the server to answer", {
    stream,
    prefix: "pantheon: ",
    quietMs: 50,
    everyMs: 50,
  });
  await new Promise((r) => setTimeout(r, 180));
  progress.log("[wrangler:info] Ready on http://127.0.0.1:1");
  progress.done("the server answers after 0 s");
  const ticks = written.filter((s) => s.startsWith("pantheon: waiting for the server to answer… ")).length;
  check(
    "on a terminal the progress line is redrawn in place (\\r) as it ticks",
    ticks >= 2 && written.includes("\r\x1b[2K"),
    JSON.stringify(written),
  );
  check(
    "a line printed meanwhile goes above the progress line, which comes back under it",
    written.indexOf("[wrangler:info] Ready on http://127.0.0.1:1\n") > 0 &&
      written.lastIndexOf("pantheon: the server answers after 0 s\n") === written.length - 1,
    JSON.stringify(written),
  );
  const quick = [];
  startProgress("building", { stream: { isTTY: false, write: (s) => quick.push(s) } }).done("built");
  check(
    "a step over in under two seconds shows only its last line",
    quick.join("") === "built\n",
    JSON.stringify(quick),
  );
  const failed = [];
  const run = await runWithProgress(
    "installing",
    process.execPath,
    ["-e", "console.log('npm http fetch GET 200 x'); console.error('E404 no such package'); process.exit(3)"],
    { stream: { isTTY: false, write: (s) => failed.push(s) }, count: /^npm http fetch/ },
  );
  check(
    "a failed step says so and shows the command's output (its counted lines left out)",
    run.code === 3 &&
      failed.join("").includes("installing failed after 0 s (exit 3)") &&
      failed.join("").includes("E404 no such package") &&
      !failed.join("").includes("npm http fetch"),
    failed.join(""),
  );
}

// `npm install` under with-node22.sh: npm is a stand-in that fetches for 3 s; the lockfile is made
// newer than node_modules so the script installs.
{
  const bin = mkdtempSync(join(tmpdir(), "pantheon-fake-npm-"));
  writeFileSync(
    join(bin, "npm"),
    `#!/bin/sh\necho "$@" > "${bin}/args"\nfor i in 1 2 3 4 5 6; do echo "npm http fetch GET 200 https://registry.example/pkg$i 5ms" >&2; sleep 0.5; done\necho "added 6 packages in 3s"\n`,
  );
  chmodSync(join(bin, "npm"), 0o755);
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(copy.dir, "package-lock.json"), later, later);
  const run = spawnSync("sh", ["scripts/with-node22.sh", "echo", "then the command"], {
    cwd: copy.dir,
    encoding: "utf8",
    env: { ...env, PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin` },
    timeout: 60_000,
  });
  const args = spawnSync("cat", [join(bin, "args")], { encoding: "utf8" }).stdout;
  check(
    "with-node22.sh runs npm install with its fetches visible to the progress line (not --loglevel=error)",
    args.includes("install") && args.includes("--loglevel=http") && !args.includes("--loglevel=error"),
    args,
  );
  check(
    "npm install shows a progress line with seconds and what it fetched, then how long it took",
    /pantheon: installing dependencies… [23] s \(\d fetched\)/.test(run.stderr) &&
      /pantheon: installing dependencies: done in [34] s \(6 fetched\)/.test(run.stderr),
    run.stderr,
  );
  check(
    "and the command runs after it",
    run.status === 0 && run.stdout.includes("then the command"),
    `${run.status} ${run.stdout}`,
  );
  const before = new Date(Date.now() - 3600_000 * 24 * 365);
  utimesSync(join(copy.dir, "package-lock.json"), before, before);
}

// A server's own sidecar ends with the process that started it, even one killed outright.
{
  const holder = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { startOwnSidecar } from ${JSON.stringify(new URL("../../sidecar/ensure-sidecar.mjs", import.meta.url).href)}; const s = await startOwnSidecar(); console.log(s.url); setInterval(() => {}, 1000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise((resolve) => {
    let text = "";
    holder.stdout.on("data", (d) => {
      text += d;
      if (text.includes("\n")) resolve(text.trim().replace(/\/v1$/, ""));
    });
    holder.once("exit", () => resolve(""));
  });
  const before = url ? await answers(`${url}/health`) : 0;
  holder.kill("SIGKILL");
  let after = 200;
  for (let i = 0; i < 50 && after !== 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await answers(`${url}/health`, {}, 1000);
  }
  check(
    "a sidecar started for a server stops when that process is killed (SIGKILL)",
    before === 200 && after === 0,
    `${url}: ${before} then ${after}`,
  );
}

let first;
let second;
try {
  const [portA, portB] = [await freePort(), await freePort()];
  first = npmStart(portA);
  const bannerA = await first.waitFor(/Login token:/);
  const urlA = `http://127.0.0.1:${portA}`;
  const token = /Login token:\s+(\S+)/.exec(first.lines[bannerA] ?? "")?.[1] ?? "";
  const call = makeCall(token);
  // The moment the banner shows, the server answers at once: the person's first click is not the slow one.
  const [health, agents] = [
    await answers(`${urlA}/api/health`),
    await answers(`${urlA}/api/agents`, { headers: { authorization: `Bearer ${token}` } }),
  ];
  check(
    "npm start prints its banner with the URL and a login token",
    bannerA >= 0 && first.text().includes(`URL:          ${urlA}`) && token.startsWith("pa_"),
    first.text().slice(-3000),
  );
  check(
    "when the banner shows, /api/health and /api/agents answer within 5 s (a cold first request takes 3 to 36 s here)",
    health === 200 && agents === 200,
    `${health} ${agents}`,
  );
  const answered = first.lines.findIndex((l) =>
    /pantheon: the server answers \(\/api\/health, \/api\/agents\) after \d+ s/.test(l),
  );
  check(
    "the banner comes after the line saying the server answered",
    answered >= 0 && answered < bannerA,
    first.lines.slice(0, bannerA + 1).join("\n"),
  );
  const steps = [
    /pantheon: building the PWA: done in \d+ s/,
    /pantheon: embeddings sidecar on http:\/\/127\.0\.0\.1:\d+\/v1 \(this server's own/,
    /pantheon: starting wrangler dev \(/,
  ];
  check(
    "each step of the start says what it did",
    steps.every((step) => first.lines.some((l) => step.test(l))),
    first.lines.slice(0, bannerA + 1).join("\n"),
  );
  const tookSeconds = Number(/after (\d+) s/.exec(first.lines[answered] ?? "")?.[1] ?? 0);
  const ticked = first.lines.some((l) =>
    /pantheon: (starting wrangler dev|waiting for the server to answer \(the first request loads the worker\)|waking the project's registry and agents)… \d+ s/.test(
      l,
    ),
  );
  check(
    `wrangler's start (${tookSeconds} s) showed a progress line with its seconds`,
    tookSeconds < 3 || ticked,
    first.lines.slice(0, bannerA + 1).join("\n"),
  );
  const sidecarA = /embeddings sidecar on (http:\/\/127\.0\.0\.1:(\d+))\/v1/.exec(first.text());

  const taken = spawnSync("npm", ["start"], {
    cwd: copy.dir,
    env: { ...env, PORT: String(portA) },
    encoding: "utf8",
    timeout: 60_000,
  });
  check(
    "a second npm start on a PORT in use is refused at once, naming a free one",
    taken.status === 2 && /Port \d+ is in use .*PORT=\d+ npm start/.test(taken.stderr),
    `${taken.status} ${taken.stderr.slice(-500)}`,
  );

  second = npmStart(portB);
  const bannerB = await second.waitFor(/Login token:/);
  const urlB = `http://127.0.0.1:${portB}`;
  check(
    "a second npm start on another PORT starts too",
    bannerB >= 0 && second.text().includes(`URL:          ${urlB}`),
    second.text().slice(-3000),
  );
  const sidecarB = /embeddings sidecar on (http:\/\/127\.0\.0\.1:(\d+))\/v1/.exec(second.text());
  check(
    "the two servers have two sidecars",
    sidecarA && sidecarB && sidecarA[1] !== sidecarB[1],
    `${sidecarA?.[1]} ${sidecarB?.[1]}`,
  );

  await first.stop();
  check(
    "Ctrl-C stops the first server and its own sidecar",
    (await answers(`${urlA}/api/health`)) === 0 && sidecarA && (await answers(`${sidecarA[1]}/health`)) === 0,
    "still answering",
  );
  check(
    "the second's sidecar still answers",
    sidecarB && (await answers(`${sidecarB[1]}/health`)) === 200,
    "no answer",
  );
  const made = await call(urlB, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "keeper", systemPrompt: "You keep things." }),
  });
  const remembered = await call(urlB, "/api/agents/keeper/memories", {
    method: "POST",
    body: JSON.stringify({ text: "The spare key is under the blue pot." }),
  });
  const status = await call(urlB, "/api/agents/keeper/memories/status");
  const space = status.body?.vectors?.find((v) => v.model === "offline:use-lite");
  check(
    "after the first stopped, the second server still embeds a new memory with USE-lite",
    made.status === 201 &&
      remembered.status === 201 &&
      status.body?.embedder?.model === "offline:use-lite" &&
      space?.vectors >= 1 &&
      status.body.missingVectors === 0,
    JSON.stringify({ made: made.status, remembered: remembered.status, status: status.body }),
  );
  await second.stop();
  check(
    "stopping the second leaves no sidecar behind",
    sidecarB && (await answers(`${sidecarB[1]}/health`)) === 0,
    "still answering",
  );
} catch (error) {
  check("the npm start check ran", false, error instanceof Error ? error.stack : String(error));
} finally {
  await first?.stop();
  await second?.stop();
  copy.remove();
}
finish();
