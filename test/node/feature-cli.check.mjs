// Work as git from the CLI, tried as a user would on a real local stack (wrangler dev) with a git
// smart-HTTP server on loopback (the real `git http-backend`, a token as the basic password) and a
// forge API stand-in: `pantheon features create --from` imports acme/app.git with a project secret's
// token (a refused token names the secret), the planner's own feature.create tool imports too,
// `pantheon feature clone-url` gives a URL plain git clones, and `pantheon tasks resolve` settles a
// real conflict from a file of the person's own (and --ours/--theirs refuse a file that does not
// conflict); then push and pull request through the CLI. Every refusal has its control beside it, and
// the exit codes are the CLI's: 0 done, 1 refused, 2 a usage mistake, 3 unreachable.
// Prints `N passed, N failed` as the last line. CHECK_PORT picks wrangler's port (default: a free one).
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { gitCli, startGitServer } from "../doubles/git-server.mjs";
import { makeChecks, makeCli, makeProjectCall } from "./check-kit.mjs";

const { check, finish } = makeChecks();
const shown = (r) => JSON.stringify(r).slice(0, 900);
const parsed = (r) => {
  try {
    return JSON.parse(r.stdout);
  } catch {
    return undefined;
  }
};
const work = await mkdtemp(join(tmpdir(), "pantheon-feature-cli-"));
const deploymentToken = `pa_${randomBytes(12).toString("hex")}`;
const remoteToken = `ghp_${randomBytes(12).toString("hex")}`;
const git = (args, cwd = work) => gitCli(args, cwd, { ...process.env, HOME: work });
const lines = (edit = {}) => Array.from({ length: 12 }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join("\n") + "\n";

const remote = await startGitServer({ token: remoteToken });
const remoteBase = await remote.repo("acme/app", { "app.txt": lines(), "README.md": "# app\n" });
let server;
try {
  server = await startDevServer({
    port: Number(process.env.CHECK_PORT) || (await freePort()),
    token: deploymentToken,
    persistTo: join(work, "state"),
    vars: { PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true", PANTHEON_GITHUB_API_BASE: `${remote.url}/api` },
  });
  const api = makeProjectCall(server.url);
  const call = (path, init) => api(deploymentToken, "default", path, init);
  const invoke = (agent, tool, args) =>
    call(`/api/agents/${agent}/tools/${tool}/invoke`, { method: "POST", body: JSON.stringify({ arguments: args }) });
  const cli = makeCli({ url: server.url, token: deploymentToken, cwd: work, configHome: join(work, "config") });
  const run = (...args) => cli(args);

  for (const [name, value] of [
    ["GIT_TOKEN", remoteToken],
    ["WRONG_TOKEN", "not-the-token"],
  ])
    await call(`/api/projects/default/secrets/${name}`, { method: "PUT", body: JSON.stringify({ value }) });
  const tools = [
    "feature.create",
    "plan.write",
    "plan.read",
    "tasks.sync",
    "task.start",
    "status",
    "fs.list",
    "fs.read",
  ];
  await call("/api/agents", { method: "POST", body: JSON.stringify({ name: "planner", runtime: { tools } }) });
  const url = `${remote.url}/acme/app.git`;

  // --- pantheon features create --from ------------------------------------------------------------
  const refused = await run(
    "features",
    "create",
    "refused",
    "--from",
    url,
    "--ref",
    "main",
    "--token-secret",
    "WRONG_TOKEN",
  );
  check(
    "features create with a token the remote refuses exits 1 naming the secret, and leaves no feature",
    refused.code === 1 &&
      /WRONG_TOKEN/.test(refused.stderr) &&
      /401/.test(refused.stderr) &&
      !refused.stderr.includes("not-the-token") &&
      (await call("/api/features/refused")).status === 404,
    shown(refused),
  );
  const created = await run(
    "features",
    "create",
    "greeting",
    "--title",
    "Say hello",
    "--from",
    url,
    "--ref",
    "main",
    "--token-secret",
    "GIT_TOKEN",
    "--json",
  );
  check(
    "features create --from imports the repository with the secret's token (the planner found by its plan.write tool)",
    created.code === 0 && parsed(created)?.name === "greeting" && parsed(created)?.orchestrator === "planner",
    shown(created),
  );
  const branches = await call("/api/features/greeting/branches");
  check("its base is the remote's main", branches.body?.base?.sha === remoteBase, shown(branches.body));
  const usage = await run("features", "create", "loose", "--token-secret", "GIT_TOKEN");
  check(
    "--token-secret without --from is a usage mistake (exit 2), beside the import that worked",
    usage.code === 2 && /--from/.test(usage.stderr),
    shown(usage),
  );
  const empty = await run("features", "create", "empty-one");
  check("features create without --from makes an empty feature (exit 0)", empty.code === 0, shown(empty));
  const unreachable = await cli(["features", "create", "nowhere", "--from", url], {
    env: { PANTHEON_URL: "http://127.0.0.1:9" },
  });
  check("with no server there, features create exits 3", unreachable.code === 3, shown(unreachable));

  // --- the planner's feature.create takes a repository ----------------------------------------------
  const byToolRefused = await invoke("planner", "feature.create", {
    name: "by-tool-refused",
    title: "Refused",
    repository: { url, tokenSecret: "WRONG_TOKEN" },
  });
  const byTool = await invoke("planner", "feature.create", {
    name: "by-tool",
    title: "Imported by the planner",
    repository: { url, ref: "main", tokenSecret: "GIT_TOKEN" },
  });
  const byToolReadme = await call("/api/features/by-tool/files/content?path=README.md");
  check(
    "the planner's feature.create imports a repository (its files readable), and with a refused token it names the secret",
    byTool.status === 200 &&
      byToolReadme.body?.content === "# app\n" &&
      /WRONG_TOKEN/.test(byToolRefused.text) &&
      (await call("/api/features/by-tool-refused")).status === 404,
    shown({ byTool, byToolRefused, byToolReadme }),
  );

  // --- pantheon feature clone-url -------------------------------------------------------------------
  const cloneUrl = await run("feature", "clone-url", "greeting");
  const urlShown = cloneUrl.stdout.trim();
  check(
    "feature clone-url prints the /git URL alone on stdout",
    cloneUrl.code === 0 && urlShown === `${server.url}/git/default/greeting.git`,
    shown(cloneUrl),
  );
  const cloned = await git([
    "-c",
    `http.extraHeader=Authorization: Bearer ${deploymentToken}`,
    "clone",
    urlShown,
    join(work, "clone"),
  ]);
  const clonedReadme = await readFile(join(work, "clone/README.md"), "utf8").catch(() => "");
  check(
    "plain git clones that URL with the project's token",
    cloned.code === 0 && clonedReadme === "# app\n",
    shown(cloned),
  );
  const noFeature = await run("feature", "clone-url", "nothing-here");
  check(
    "clone-url of a feature that does not exist exits 1 naming it",
    noFeature.code === 1 && /nothing-here/.test(noFeature.stderr),
    shown(noFeature),
  );

  // --- a real conflict, resolved with pantheon tasks resolve -----------------------------------------
  await call("/api/features/greeting/plan", {
    method: "PUT",
    body: JSON.stringify({
      markdown: "# Say hello\n\n## Tasks\n1. Greet — line three says hello\n2. Welcome — line three says welcome\n",
    }),
  });
  await call("/api/features/greeting/plan/approve", { method: "POST", body: "{}" });
  await call("/api/features/greeting/tasks/sync", { method: "POST" });
  const w1 = (await call("/api/features/greeting/tasks/1/start", { method: "POST" })).body?.worker;
  const w2 = (await call("/api/features/greeting/tasks/2/start", { method: "POST" })).body?.worker;
  await invoke(w1, "fs.write", { path: "app.txt", content: lines({ 3: "hello" }) });
  await invoke(w1, "task.commit", { summary: "Say hello on line three" });
  await invoke(w2, "fs.write", { path: "app.txt", content: lines({ 3: "welcome" }) });
  const conflicted = JSON.parse((await invoke(w2, "task.commit", { summary: "Say welcome" })).body?.output ?? "{}");
  check(
    "task 2 meets a real conflict on app.txt",
    conflicted.committed === false && conflicted.conflicts?.[0] === "app.txt",
    shown(conflicted),
  );

  const nothingNamed = await run("tasks", "resolve", "greeting", "2");
  check(
    "tasks resolve without a file is a usage mistake naming the conflicting files (exit 2)",
    nothingNamed.code === 2 && /app\.txt/.test(nothingNamed.stderr),
    shown(nothingNamed),
  );
  const notConflicting = await run("tasks", "resolve", "greeting", "2", "--theirs", "README.md");
  check(
    "--theirs for a file that does not conflict is a usage mistake (exit 2) naming the ones that do",
    notConflicting.code === 2 && /README\.md/.test(notConflicting.stderr) && /app\.txt/.test(notConflicting.stderr),
    shown(notConflicting),
  );
  await writeFile(join(work, "app.txt"), lines({ 3: "<<<<<<< feature\nhello\n=======\nwelcome\n>>>>>>> task" }));
  const marked = await run("tasks", "resolve", "greeting", "2", "--file", "app.txt");
  check(
    "a file still holding conflict markers is refused (exit 1) naming it",
    marked.code === 1 && /app\.txt/.test(marked.stderr) && /marker/.test(marked.stderr),
    shown(marked),
  );
  await writeFile(join(work, "app.txt"), lines({ 3: "hello and welcome" }));
  const resolved = await run("tasks", "resolve", "greeting", "2", "--file", "app.txt", "--json");
  const merged = await call("/api/features/greeting/files/content?path=app.txt");
  check(
    "tasks resolve --file commits the person's file and merges it into the feature branch",
    resolved.code === 0 &&
      parsed(resolved)?.committed === true &&
      merged.body?.content === lines({ 3: "hello and welcome" }),
    shown({ resolved, merged: merged.body }),
  );
  const log = await call("/api/features/greeting/commits?limit=3");
  const tip = log.body?.commits?.[0];
  check("the feature's tip is a merge commit (two parents)", tip?.parents?.length === 2, shown(log.body));
  const again = await run("tasks", "resolve", "greeting", "2", "--ours", "app.txt");
  check(
    "resolving again when nothing conflicts exits 1 or 2 with the reason",
    (again.code === 1 || again.code === 2) && /no conflict/.test(again.stderr),
    shown(again),
  );

  // --- the work leaves: push and pull request from the CLI ---------------------------------------------
  const pushed = await run("feature", "push", "greeting", "--json");
  check(
    "feature push sends the branch with the secret's token",
    pushed.code === 0 && parsed(pushed)?.pushed === true,
    shown(pushed),
  );
  const pr = await run("feature", "pr", "greeting", "--json");
  check(
    "feature pr opens a pull request on the forge stand-in",
    pr.code === 0 && parsed(pr)?.number === 7 && remote.seen.pulls.at(-1)?.auth === `Bearer ${remoteToken}`,
    shown(pr),
  );
  // --- the project's forge, from the CLI ---------------------------------------------------------------
  const privateForge = await run("project", "forge", "--kind", "gitea", "--api-base", "https://10.0.0.5/api/v1");
  check(
    "project forge refuses a private API base the deployment did not name (exit 1, naming apiBase)",
    privateForge.code === 1 && /apiBase/.test(privateForge.stderr) && /private/.test(privateForge.stderr),
    shown(privateForge),
  );
  const badKind = await run("project", "forge", "--kind", "bitbucket", "--api-base", "https://api.bitbucket.org/2.0");
  check("an unknown forge kind is a usage mistake (exit 2)", badKind.code === 2, shown(badKind));
  const gitea = await run("project", "forge", "--kind", "gitea", "--api-base", `${remote.url}/gitea/api/v1`, "--json");
  const giteaPr = await run("feature", "pr", "greeting", "--json");
  check(
    "with the project's forge set to Gitea, feature pr opens there (its own auth scheme)",
    gitea.code === 0 &&
      parsed(gitea)?.configured === true &&
      giteaPr.code === 0 &&
      parsed(giteaPr)?.number === 8 &&
      remote.seen.pulls.at(-1)?.auth === `token ${remoteToken}`,
    shown({ gitea, giteaPr }),
  );
  const cleared = await run("project", "forge", "--clear", "--json");
  check(
    "project forge --clear goes back to the deployment's GitHub",
    cleared.code === 0 && parsed(cleared)?.configured === false && parsed(cleared)?.kind === "github",
    shown(cleared),
  );

  check(
    "no CLI output showed the remote's token",
    ![created, refused, pushed, pr, resolved].some(
      (r) => r.stdout.includes(remoteToken) || r.stderr.includes(remoteToken),
    ),
    "token shown",
  );
} catch (error) {
  check("the CLI flow ran to its end", false, error?.stack ?? String(error));
} finally {
  await server?.stop?.();
  await remote.close();
  await rm(remote.work, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
}
finish();
