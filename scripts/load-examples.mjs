// Loads the example agents (examples/*.pnth) into a running Pantheon: `npm start -- --examples`
// calls it, or run it by hand against any deployment:
//   node scripts/load-examples.mjs http://localhost:8787 <token>
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const examplesDir = new URL("../examples/", import.meta.url);
/** Agents that others connect to come first, so `main` finds its connections. */
export const exampleNames = ["airtable", "github", "dev-buddy", "main", "planner"];

/**
 * The work example (examples/work/*.json): a feature of `planner` with its plan written by the
 * planner's own tool, approved, its tasks synced, and the tasks listed under `worked` carried out by
 * their worker agents — each started (its own Durable Object), its files written and committed
 * through the worker's own tools called by hand, since the offline model cannot write code. The
 * other tasks stay pending for you to start, answer and commit from the PWA or the API.
 */
async function loadWorkExample(file, { url, token, project, log }) {
  const example = JSON.parse(await readFile(new URL(`work/${file}`, examplesDir), "utf8"));
  const base = url.replace(/\/$/, "");
  const call = async (method, path, json) => {
    const headers = { authorization: `Bearer ${token}` };
    if (project) headers["x-pantheon-project"] = project;
    if (json !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(base + path, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const body = await res.json().catch(() => ({}));
    return { status: res.status, body };
  };
  const name = example.feature.name;
  const created = await call("POST", "/api/features", example.feature);
  if (created.status === 409) return log(`  example feature '${name}' is already loaded`);
  if (created.status !== 201)
    throw new Error(`feature '${name}' was refused (${created.status}): ${created.body.error?.message}`);
  const steps = [
    ["PUT", `/api/features/${name}/plan`, { markdown: example.plan }],
    ["POST", `/api/features/${name}/plan/approve`, {}],
    ["POST", `/api/features/${name}/tasks/sync`, undefined],
  ];
  for (const [method, path, json] of steps) {
    const res = await call(method, path, json);
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.body.error?.message}`);
  }
  for (const work of example.worked ?? []) {
    const started = await call("POST", `/api/features/${name}/tasks/${work.task}/start`);
    if (started.status !== 202)
      throw new Error(`starting task ${work.task} answered ${started.status}: ${started.body.error?.message}`);
    const worker = started.body.worker;
    for (const write of work.writes) {
      const res = await call("POST", `/api/agents/${worker}/tools/fs.write/invoke`, { arguments: write });
      if (res.status !== 200 || res.body.ok === false)
        throw new Error(`fs.write ${write.path} failed: ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    const commit = await call("POST", `/api/agents/${worker}/tools/task.commit/invoke`, {
      arguments: { summary: work.summary },
    });
    if (commit.status !== 200 || commit.body.ok === false)
      throw new Error(`task.commit failed: ${JSON.stringify(commit.body).slice(0, 300)}`);
  }
  log(`  loaded example feature '${name}' (${(example.worked ?? []).length} task(s) worked, the rest pending)`);
}

/**
 * PUTs each example script to `/api/agents/<name>/script`, creating or updating the agent.
 * Resolves to one line per example; throws only when none could be loaded.
 * @example
 * await loadExamples({ url: "http://localhost:8787", token: "pa_…" });
 */
export async function loadExamples({ url, token, project, log = console.log } = {}) {
  if (!url || !token) throw new Error("loadExamples needs { url, token }");
  const results = [];
  if (project && project !== "default") {
    // Projects are created explicitly; one that exists already (409) is fine.
    const res = await fetch(`${url.replace(/\/$/, "")}/api/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ slug: project }),
    });
    if (res.status !== 201 && res.status !== 409) log(`  project '${project}' could not be created (${res.status})`);
  }
  for (const name of exampleNames) {
    const source = await readFile(new URL(`${name}.pnth`, examplesDir), "utf8");
    const headers = { authorization: `Bearer ${token}`, "content-type": "text/x-pantheon" };
    if (project) headers["x-pantheon-project"] = project;
    try {
      const res = await fetch(`${url.replace(/\/$/, "")}/api/agents/${name}/script`, {
        method: "PUT",
        headers,
        body: source,
      });
      const body = await res.json().catch(() => ({}));
      const ok = res.status === 200 || res.status === 201;
      const warnings = ok ? (body.warnings?.length ?? 0) : 0;
      results.push({
        name,
        ok,
        status: res.status,
        ...(ok ? { warnings } : { error: body.error?.message ?? res.statusText }),
      });
      log(
        ok
          ? `  loaded example '${name}'${warnings ? ` (${warnings} warning${warnings > 1 ? "s" : ""}: tools no registry provides yet)` : ""}`
          : `  example '${name}' was refused (${res.status}): ${body.error?.message ?? res.statusText}`,
      );
    } catch (error) {
      results.push({ name, ok: false, status: 0, error: error instanceof Error ? error.message : String(error) });
      log(`  example '${name}' could not be sent: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (!results.some((r) => r.ok))
    throw new Error(`no example could be loaded: ${results.map((r) => `${r.name}: ${r.error}`).join("; ")}`);
  if (results.some((r) => r.name === "planner" && r.ok)) {
    try {
      await loadWorkExample("greeting-page.json", { url, token, project, log });
    } catch (error) {
      log(`  example feature could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [url = process.env.PANTHEON_URL, token = process.env.PANTHEON_TOKEN] = process.argv.slice(2);
  loadExamples({ url, token }).catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
