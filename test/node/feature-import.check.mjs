// A feature's import, tried as a user would on a real local stack (wrangler dev on 127.0.0.1:8840):
// a git smart-HTTP remote on loopback (the real `git http-backend`, a token as the basic password)
// holds a small repository whose one file is 300 MB of zeros (`dd`, committed with git): the import
// is refused with 413 naming the limit, within seconds, while the workerd processes' memory (VmRSS
// in /proc, sampled all through) stays under 256 MB; a wrong token answers 400 naming its secret;
// then a feature of one Pantheon project is imported into another over Pantheon's own /git URL with
// the first project's token as a secret (isomorphic-git reading what Pantheon serves), and plain
// `git clone` still reads both. Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevServer } from "../../scripts/dev-server.mjs";
import { gitCli, startGitServer } from "../doubles/git-server.mjs";
import { makeChecks, makeProjectCall, makeTenant } from "./check-kit.mjs";

const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 700);
const work = await mkdtemp(join(tmpdir(), "pantheon-import-"));
const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const remoteToken = `ghp_${randomBytes(12).toString("hex")}`;
const git = (args, cwd = work) => gitCli(args, cwd, { ...process.env, HOME: work });
const MB = 1024 * 1024;

/** The workerd processes under wrangler's process (its runtime), by walking /proc's parent links. */
function workerdPids(root) {
  const parent = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  const under = (pid) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === root) return true;
    return false;
  };
  return [...parent.keys()].filter((pid) => {
    try {
      return under(pid) && readFileSync(`/proc/${pid}/comm`, "utf8").trim().startsWith("workerd");
    } catch {
      return false;
    }
  });
}

/** Each of those processes' resident memory (VmRSS), in bytes, by pid. */
function workerdRss(root) {
  const out = new Map();
  for (const pid of workerdPids(root)) {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      out.set(pid, Number(kb ?? 0) * 1024);
    } catch {}
  }
  return out;
}

const remote = await startGitServer({ token: remoteToken });
await remote.repo("acme/app", { "app.txt": "hello\n" });
await remote.zerosRepo("zeros/300mb", 300 * MB);
const packed = await git(["count-objects", "-vH"], join(remote.root, "zeros/300mb.git"));

let server;
try {
  server = await startDevServer({
    port: 8840,
    token: deploymentToken,
    persistTo: join(work, "state"),
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true" },
  });
  const api = makeProjectCall(server.url);
  const call = (path, init) => api(deploymentToken, "default", path, init);
  const put = (name, value) =>
    call(`/api/projects/default/secrets/${name}`, { method: "PUT", body: JSON.stringify({ value }) });
  await put("GIT_TOKEN", remoteToken);
  await put("GITHUB_TOKEN", "a-revoked-token");
  await call("/api/agents", { method: "POST", body: JSON.stringify({ name: "planner" }) });
  const importFeature = (name, repository) =>
    call("/api/features", {
      method: "POST",
      body: JSON.stringify({ name, title: "Imported", orchestrator: "planner", repository }),
    });
  const pids = workerdPids(server.child.pid);
  check("the workerd processes of wrangler dev are found to measure", pids.length > 0, shown(pids));

  // --- a small repository that unpacks to 300 MB ------------------------------------------------
  // wrangler dev runs two workerd processes (its proxy on the public port, and the runtime of the
  // worker and its Durable Objects): each is sampled, and each must stay under the bound.
  const before = workerdRss(server.child.pid);
  const peak = new Map(before);
  const sample = () => {
    for (const [pid, rss] of workerdRss(server.child.pid)) peak.set(pid, Math.max(peak.get(pid) ?? 0, rss));
  };
  const sampler = setInterval(sample, 50);
  const started = performance.now();
  const zeros = await importFeature("zeros", { url: `${remote.url}/zeros/300mb.git`, tokenSecret: "GIT_TOKEN" });
  const seconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 500));
  clearInterval(sampler);
  sample();
  const figures = [...peak].map(
    ([pid, rss]) => `${Math.round((before.get(pid) ?? 0) / MB)} → ${Math.round(rss / MB)} MB`,
  );
  console.log(
    `measured: 300 MB of zeros (${packed.stdout.replace(/\s+/g, " ").trim()}) refused in ${seconds.toFixed(2)} s; workerd RSS before → peak, per process: ${figures.join(", ")}`,
  );
  check(
    "a small repository that unpacks to 300 MB is refused with 413 naming the 64 MB limit",
    zeros.status === 413 &&
      zeros.body?.error?.message ===
        "the remote's pack holds a blob of 300 MB: a feature imports at most 64 MB of repository data (each object and all together)",
    shown(zeros),
  );
  check(
    "each workerd process's memory stays under 256 MB all through the import",
    peak.size > 0 && [...peak.values()].every((rss) => rss < 256 * MB),
    figures.join(", "),
  );
  check(
    "no feature is left of the refused import",
    (await call("/api/features/zeros")).status === 404,
    "a feature remained",
  );
  const app = await importFeature("app", { url: `${remote.url}/acme/app.git`, tokenSecret: "GIT_TOKEN" });
  const content = await call("/api/features/app/files/content?path=app.txt");
  check(
    "a small repository from the same remote imports",
    app.status === 201 && content.body?.content === "hello\n",
    shown({ app, content }),
  );

  // --- credentials the remote refuses --------------------------------------------------------------
  const refused = await importFeature("refused", { url: `${remote.url}/acme/app.git`, tokenSecret: "GITHUB_TOKEN" });
  check(
    "a remote that refuses the secret's token answers 400 naming the secret",
    refused.status === 400 &&
      refused.body?.error?.message.includes("refused the credentials in secret GITHUB_TOKEN (401)") &&
      !refused.text.includes("a-revoked-token"),
    shown(refused),
  );

  // --- one Pantheon project imports another's feature over /git ----------------------------------
  const upstream = await makeTenant(api, deploymentToken, "upstream");
  await upstream.call("/api/agents", { method: "POST", body: JSON.stringify({ name: "planner" }) });
  const files = { "app.txt": "from upstream\n", "src/lib/x.ts": "export const x = 1;\n" };
  const source = await upstream.call("/api/features", {
    method: "POST",
    body: JSON.stringify({ name: "shared", title: "Shared", orchestrator: "planner", files }),
  });
  const tip = (await upstream.call("/api/features/shared/commits?limit=1")).body?.commits?.[0]?.sha;
  const chat = (
    await upstream.call("/api/tokens", { method: "POST", body: JSON.stringify({ name: "mirror", scope: "chat" }) })
  ).body?.token;
  await put("UPSTREAM_TOKEN", chat);
  const gitUrl = `${server.url}/git/upstream/shared.git`;
  const mirrored = await importFeature("mirror", { url: gitUrl, tokenSecret: "UPSTREAM_TOKEN" });
  const base = (await call("/api/features/mirror/branches")).body?.base;
  const read = await Promise.all(
    Object.keys(files).map(
      async (path) => (await call(`/api/features/mirror/files/content?path=${path}`)).body?.content,
    ),
  );
  check(
    "a feature of another project is imported from its /git URL with that project's token as a secret",
    source.status === 201 &&
      mirrored.status === 201 &&
      base?.sha === tip &&
      read.join("") === Object.values(files).join(""),
    shown({ source: source.status, mirrored, base, tip, read }),
  );
  const host = new URL(server.url).host;
  const clone = await git(["clone", `http://x:${chat}@${host}/git/upstream/shared.git`, join(work, "shared")]);
  const cloned = clone.code === 0 ? await readFile(join(work, "shared/src/lib/x.ts"), "utf8").catch(() => "") : "";
  const mirrorClone = await git([
    "clone",
    `http://x:${deploymentToken}@${host}/git/default/mirror.git`,
    join(work, "mirror"),
  ]);
  const head =
    mirrorClone.code === 0 ? (await git(["log", "-1", "--format=%H"], join(work, "mirror"))).stdout.trim() : "";
  check(
    "git clone still reads the upstream feature and the imported one (the same commit)",
    clone.code === 0 && cloned === files["src/lib/x.ts"] && head === tip,
    shown({ clone, mirrorClone, head, tip }),
  );
} catch (error) {
  check("the flow ran to its end", false, error?.stack ?? String(error));
} finally {
  await server?.stop?.();
  await remote.close();
  await rm(remote.work, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
}
finish();
