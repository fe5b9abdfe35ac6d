// Loads the example agents (examples/*.pnth) into a running Pantheon: `npm start -- --examples`
// calls it, or run it by hand against any deployment:
//   node scripts/load-examples.mjs http://localhost:8787 <token>
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const examplesDir = new URL("../examples/", import.meta.url);
/** Agents that others connect to come first, so `main` finds its connections. */
export const exampleNames = ["airtable", "github", "dev-buddy", "main"];

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
    const res = await fetch(`${url.replace(/\/$/, "")}/api/projects`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ slug: project }) });
    if (res.status !== 201 && res.status !== 409) log(`  project '${project}' could not be created (${res.status})`);
  }
  for (const name of exampleNames) {
    const source = await readFile(new URL(`${name}.pnth`, examplesDir), "utf8");
    const headers = { authorization: `Bearer ${token}`, "content-type": "text/x-pantheon" };
    if (project) headers["x-pantheon-project"] = project;
    try {
      const res = await fetch(`${url.replace(/\/$/, "")}/api/agents/${name}/script`, { method: "PUT", headers, body: source });
      const body = await res.json().catch(() => ({}));
      const ok = res.status === 200 || res.status === 201;
      const warnings = ok ? body.warnings?.length ?? 0 : 0;
      results.push({ name, ok, status: res.status, ...(ok ? { warnings } : { error: body.error?.message ?? res.statusText }) });
      log(ok ? `  loaded example '${name}'${warnings ? ` (${warnings} warning${warnings > 1 ? "s" : ""}: tools no registry provides yet)` : ""}` : `  example '${name}' was refused (${res.status}): ${body.error?.message ?? res.statusText}`);
    } catch (error) {
      results.push({ name, ok: false, status: 0, error: error instanceof Error ? error.message : String(error) });
      log(`  example '${name}' could not be sent: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (!results.some((r) => r.ok)) throw new Error(`no example could be loaded: ${results.map((r) => `${r.name}: ${r.error}`).join("; ")}`);
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [url = process.env.PANTHEON_URL, token = process.env.PANTHEON_TOKEN] = process.argv.slice(2);
  loadExamples({ url, token }).catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
