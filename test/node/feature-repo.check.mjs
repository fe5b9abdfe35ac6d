// A feature's work leaves as git, tried as a user would on a real local stack (wrangler dev): a git
// smart-HTTP server on loopback (the real `git http-backend` behind a node:http CGI wrapper, asking
// for a token as the basic password) holds acme/app.git; Pantheon imports it with the token from a
// project secret, two tasks edit the same line on their branches, the second meets a real conflict
// and resolves it by rewriting the file, the feature branch is pushed back and a pull request opened
// on a GitHub API stand-in; then the remote is read with the `git` command line (log, merge commits,
// trailers, files), and the feature is cloned from Pantheon itself with plain `git clone`, and from a
// downloaded bundle. Prints `N passed, N failed` as the last line.
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { gitCli, startGitServer } from "../doubles/git-server.mjs";
import { makeChecks, makeProjectCall } from "./check-kit.mjs";

const { check, finish } = makeChecks();
const shown = (value) => JSON.stringify(value).slice(0, 700);
const work = await mkdtemp(join(tmpdir(), "pantheon-repo-"));
const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const remoteToken = `ghp_${randomBytes(12).toString("hex")}`;
const git = (args, cwd = work) => gitCli(args, cwd, { ...process.env, HOME: work });
const lines = (edit = {}) => Array.from({ length: 12 }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join("\n") + "\n";

// --- the remote: acme/app.git with one commit on main, behind a token ------------------------------
const remote = await startGitServer({ token: remoteToken });
const remoteBase = await remote.repo("acme/app", { "app.txt": lines(), "README.md": "# app\n" });
const { seen, root: projectRoot, url: remoteUrl } = remote;

let server;
try {
  server = await startDevServer({
    port: await freePort(),
    token: deploymentToken,
    persistTo: join(work, "state"),
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true", PANTHEON_GITHUB_API_BASE: `${remoteUrl}/api` },
  });
  const api = makeProjectCall(server.url);
  const call = (path, init) => api(deploymentToken, "default", path, init);
  const invoke = (agent, tool, args) =>
    call(`/api/agents/${agent}/tools/${tool}/invoke`, { method: "POST", body: JSON.stringify({ arguments: args }) });

  await call("/api/projects/default/secrets/GIT_TOKEN", {
    method: "PUT",
    body: JSON.stringify({ value: remoteToken }),
  });
  await call("/api/projects/default/secrets/WRONG_TOKEN", {
    method: "PUT",
    body: JSON.stringify({ value: "not-the-token" }),
  });
  const planner = await call("/api/agents", {
    method: "POST",
    body: JSON.stringify({
      name: "planner",
      runtime: {
        tools: [
          "feature.create",
          "plan.write",
          "plan.read",
          "tasks.sync",
          "task.start",
          "status",
          "fs.list",
          "fs.read",
        ],
      },
    }),
  });
  check("an orchestrating agent is made", planner.status === 201, shown(planner));

  // --- import ---------------------------------------------------------------------------------
  const repository = { url: `${remoteUrl}/acme/app.git`, ref: "main", tokenSecret: "GIT_TOKEN" };
  const refusedImport = await call("/api/features", {
    method: "POST",
    body: JSON.stringify({
      name: "refused",
      title: "Refused",
      orchestrator: "planner",
      repository: { ...repository, tokenSecret: "WRONG_TOKEN" },
    }),
  });
  const noFeature = await call("/api/features/refused");
  check(
    "an import with a token the remote refuses fails with a 4xx/5xx naming the remote, and leaves no feature",
    refusedImport.status >= 400 &&
      refusedImport.status !== 500 &&
      noFeature.status === 404 &&
      !refusedImport.text.includes("not-the-token"),
    shown({ refusedImport, noFeature: noFeature.status }),
  );
  const created = await call("/api/features", {
    method: "POST",
    body: JSON.stringify({ name: "greeting", title: "Say hello", orchestrator: "planner", repository }),
  });
  check(
    "a feature is imported from the git server with the token from the project's secrets",
    created.status === 201 && seen.git.some((r) => r.service === "git-upload-pack" && r.authorized),
    shown({ created, seen: seen.git }),
  );
  const branches = await call("/api/features/greeting/branches");
  check(
    "its base commit is the remote's main, and its branch is pantheon/greeting",
    branches.body?.base?.sha === remoteBase &&
      branches.body?.base?.ref === "main" &&
      branches.body?.branch === "pantheon/greeting",
    shown(branches.body),
  );
  const readme = await call("/api/features/greeting/files/content?path=README.md");
  check("the imported files are readable", readme.body?.content === "# app\n", shown(readme));

  // --- plan, tasks as branches, a real conflict resolved by rewriting -------------------------
  await call("/api/features/greeting/plan", {
    method: "PUT",
    body: JSON.stringify({
      markdown: "# Say hello\n\n## Tasks\n1. Greet — line three says hello\n2. Welcome — line three says welcome\n",
    }),
  });
  await call("/api/features/greeting/plan/approve", { method: "POST", body: "{}" });
  const synced = await call("/api/features/greeting/tasks/sync", { method: "POST" });
  check(
    "the plan is approved and its two tasks synced",
    synced.status === 200 && synced.body?.result?.tasks?.length === 2,
    shown(synced),
  );
  const started = [
    await call("/api/features/greeting/tasks/1/start", { method: "POST" }),
    await call("/api/features/greeting/tasks/2/start", { method: "POST" }),
  ];
  const [w1, w2] = started.map((s) => s.body?.worker);
  const taskBranches = (await call("/api/features/greeting/branches")).body?.branches?.filter((b) => b.task);
  check(
    "each started task has its own branch from the feature branch",
    started.every((s) => s.status === 202) &&
      taskBranches?.length === 2 &&
      taskBranches.every((b) => b.sha === remoteBase),
    shown({ started: started.map((s) => s.status), taskBranches }),
  );

  const write1 = await invoke(w1, "fs.write", { path: "app.txt", content: lines({ 3: "hello" }) });
  const commit1 = await invoke(w1, "task.commit", { summary: "Say hello on line three" });
  check(
    "task 1's worker writes on its branch and commits: merged into the feature branch",
    write1.status === 200 && commit1.status === 200 && JSON.parse(commit1.body?.output ?? "{}").committed === true,
    shown({ write1, commit1 }),
  );
  await invoke(w2, "fs.write", { path: "app.txt", content: lines({ 3: "welcome" }) });
  const commit2 = await invoke(w2, "task.commit", { summary: "Say welcome on line three" });
  const conflict = JSON.parse(commit2.body?.output ?? "{}");
  check(
    "task 2's commit meets a real conflict: both sides given, nothing merged",
    conflict.committed === false &&
      conflict.conflicts?.[0] === "app.txt" &&
      conflict.conflict?.files?.[0]?.ours?.includes("hello") &&
      conflict.conflict.files[0].theirs.includes("welcome"),
    shown(commit2),
  );
  const marked = await invoke(w2, "fs.read", { path: "app.txt" });
  check(
    "the worker reads the marked file in its copy",
    /<<<<<<< feature[\s\S]*hello[\s\S]*=======[\s\S]*welcome[\s\S]*>>>>>>> task/.test(marked.body?.output ?? ""),
    shown(marked),
  );
  await invoke(w2, "fs.write", { path: "app.txt", content: lines({ 3: "hello and welcome" }) });
  const commit3 = await invoke(w2, "task.commit", { summary: "Say hello and welcome" });
  check(
    "rewriting the file and committing again resolves it: merged",
    JSON.parse(commit3.body?.output ?? "{}").committed === true,
    shown(commit3),
  );
  const merged = await call("/api/features/greeting/files/content?path=app.txt");
  check(
    "the feature branch holds the resolution",
    merged.body?.content === lines({ 3: "hello and welcome" }),
    shown(merged),
  );

  // --- push, pull request ---------------------------------------------------------------------
  const pushed = await call("/api/features/greeting/push", { method: "POST", body: "{}" });
  check(
    "the feature branch is pushed to its remote with the secret's token",
    pushed.status === 200 &&
      pushed.body?.pushed === true &&
      pushed.body?.branch === "pantheon/greeting" &&
      seen.git.some((r) => r.service === "git-receive-pack" && r.authorized),
    shown(pushed),
  );
  const again = await call("/api/features/greeting/push", { method: "POST", body: "{}" });
  check(
    "pushing again is harmless (the remote has that commit)",
    again.status === 200 && again.body?.commit === pushed.body?.commit,
    shown(again),
  );
  const bare = join(projectRoot, "acme/app.git");
  const log = await git(["log", "--format=%H %P%n%B%n--", "pantheon/greeting"], bare);
  const mergeCommits = log.stdout.split("\n").filter((l) => /^[0-9a-f]{40}( [0-9a-f]{40}){2}$/.test(l));
  check(
    "git log on the remote shows the merge commits (two parents) and the task commits' trailers",
    mergeCommits.length >= 2 &&
      /Feature: greeting\nTask: 1 \(/.test(log.stdout) &&
      /Task: 2 \(/.test(log.stdout) &&
      /Run: /.test(log.stdout),
    log.stdout.slice(0, 800),
  );
  const shownFile = await git(["show", "pantheon/greeting:app.txt"], bare);
  check(
    "git show on the remote has the resolved file",
    shownFile.stdout === lines({ 3: "hello and welcome" }),
    shownFile.stdout,
  );
  const ancestry = await git(["merge-base", "--is-ancestor", remoteBase, "pantheon/greeting"], bare);
  check("the pushed branch descends from the imported base commit", ancestry.code === 0, shown(ancestry));
  const pr = await call("/api/features/greeting/pr", { method: "POST", body: JSON.stringify({}) });
  const sent = seen.pulls.at(-1);
  check(
    "a pull request is opened from pantheon/greeting into main with the report as its body",
    pr.status === 201 &&
      pr.body?.number === 7 &&
      sent?.auth === `Bearer ${remoteToken}` &&
      sent.body.head === "pantheon/greeting" &&
      sent.body.base === "main" &&
      sent.body.body.includes("Greet") &&
      sent.body.title === "Say hello",
    shown({ pr, sent }),
  );
  check(
    "no answer of Pantheon showed the remote's token",
    ![created, pushed, pr, commit1, commit3].some((r) => r.text.includes(remoteToken)),
    "token in an answer",
  );

  // --- the code reaches a person with plain git --------------------------------------------------
  const host = new URL(server.url).host;
  const clone = await git([
    "clone",
    `http://x:${deploymentToken}@${host}/git/default/greeting.git`,
    join(work, "from-pantheon"),
  ]);
  const cloned = clone.code === 0 ? await readFile(join(work, "from-pantheon/app.txt"), "utf8").catch(() => "") : "";
  const clonedLog =
    clone.code === 0 ? await git(["log", "--merges", "--format=%s"], join(work, "from-pantheon")) : { stdout: "" };
  check(
    "git clone from Pantheon (token as the basic password) gets the feature branch with its merges",
    clone.code === 0 && cloned === lines({ 3: "hello and welcome" }) && /Merge task 2/.test(clonedLog.stdout),
    shown({ clone, cloned, log: clonedLog.stdout }),
  );
  const fetchAfter = clone.code === 0 ? await git(["fetch", "origin"], join(work, "from-pantheon")) : { code: 1 };
  check("git fetch on that clone answers (nothing new)", fetchAfter.code === 0, shown(fetchAfter));
  const wrong = await git(["clone", `http://x:pt_wrong@${host}/git/default/greeting.git`, join(work, "refused")]);
  check(
    "a clone with a token that is not the project's is refused",
    wrong.code !== 0 && /401|Authentication failed|could not read/i.test(wrong.stderr),
    shown(wrong),
  );
  const bundle = await fetch(`${server.url}/api/features/greeting/download?format=bundle`, {
    headers: { authorization: `Bearer ${deploymentToken}` },
  });
  await writeFile(join(work, "greeting.bundle"), Buffer.from(await bundle.arrayBuffer()));
  const verified = await git(["bundle", "list-heads", join(work, "greeting.bundle")]);
  const fromBundle = await git(["clone", join(work, "greeting.bundle"), join(work, "from-bundle")]);
  const bundled =
    fromBundle.code === 0 ? await readFile(join(work, "from-bundle/app.txt"), "utf8").catch(() => "") : "";
  check(
    "the downloaded bundle lists the feature branch and clones with git",
    verified.code === 0 &&
      /refs\/heads\/pantheon\/greeting/.test(verified.stdout) &&
      bundled === lines({ 3: "hello and welcome" }),
    shown({ verified, fromBundle }),
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
