// The production deploy path from a fresh copy of the repository, offline: docs/deployment.md's
// "Configuration for production" steps are followed verbatim up to the dry run (`npm run deploy --
// --dry-run`, which builds the PWA and bundles the worker with `wrangler deploy --dry-run --env
// production`), and the one-time commands the script prints are the ones docs/deployment.md lists.
// The copy holds what git tracks plus untracked files not ignored (so a fresh clone of what would
// be committed), with node_modules linked to this checkout's to stay fast. The dry run happens while
// `wrangler dev` serves the copy, as `npm start` would: its PWA must still answer afterwards (a dry run
// that rebuilt pwa/dist left every PWA file a 404 until the server restarted). Prints `N passed, N failed`.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { makeChecks } from "./check-kit.mjs";
import { root } from "./memory-harness.mjs";

const { check, finish } = makeChecks();
const copy = mkdtempSync(join(tmpdir(), "pantheon-deploy-"));
let server;

/** Status of each PWA file the server serves: the shell, the app bundle, the service worker, an icon. */
const pwaStatuses = async (url) => {
  const statuses = {};
  for (const path of ["/", "/app.js", "/sw.js", "/icon-192.png"]) statuses[path] = (await fetch(url + path)).status;
  return statuses;
};
const allOk = (statuses) => Object.values(statuses).every((status) => status === 200);
/** The served folder's identity and each file's: the same inode and times means nothing touched it. */
const folderState = (dir) =>
  JSON.stringify([
    statSync(dir).ino,
    ...readdirSync(dir).map((f) => [f, statSync(join(dir, f)).ino, statSync(join(dir, f)).mtimeMs]),
  ]);

try {
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  const files = listed.stdout
    .split("\0")
    .filter((f) => f && existsSync(join(root, f)) && statSync(join(root, f)).isFile());
  for (const file of files) cpSync(join(root, file), join(copy, file), { preserveTimestamps: true });
  // Timestamps kept: scripts/with-node22.sh reinstalls only when package-lock.json is newer than node_modules.
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));
  check(
    "the fresh copy has no built PWA and no bundle",
    !existsSync(join(copy, "pwa/dist")) && !existsSync(join(copy, "dist")),
    "pwa/dist or dist came along",
  );

  const readme = readFileSync(join(copy, "docs/deployment.md"), "utf8");
  const start = readme.indexOf("## Configuration for production");
  const section = start < 0 ? "" : readme.slice(start, readme.indexOf("\n## ", start + 10) >>> 0);
  check(
    "docs/deployment.md has a production section that starts with the dry run",
    section.includes("npm run deploy -- --dry-run"),
    section.slice(0, 300),
  );

  // `npm start` in the copy: wrangler dev serving the copy's pwa/dist (built by the start, as on a fresh clone).
  const { freePort, startDevServer } = await import(pathToFileURL(join(copy, "scripts/dev-server.mjs")).href);
  const port = await freePort();
  process.chdir(copy);
  try {
    server = await startDevServer({
      port,
      token: `pa_${randomBytes(12).toString("hex")}`,
      persistTo: join(copy, ".state"),
    });
  } finally {
    process.chdir(root);
  }
  const before = await pwaStatuses(server.url);
  check("before the dry run, the served PWA answers 200", allOk(before), JSON.stringify(before));
  const served = join(copy, "pwa/dist");
  const servedBefore = folderState(served);

  // Step 1 of docs/deployment.md, verbatim, in the copy.
  const started = Date.now();
  const run = spawnSync("npm", ["run", "deploy", "--", "--dry-run"], {
    cwd: copy,
    encoding: "utf8",
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    timeout: 300_000,
  });
  const output = `${run.stdout}\n${run.stderr}`;
  check(
    `npm run deploy -- --dry-run succeeds from the fresh copy (${Math.round((Date.now() - started) / 1000)} s)`,
    run.status === 0,
    output.slice(-3000),
  );
  check(
    "it ran wrangler's dry run of the production environment",
    output.includes("--dry-run: exiting now.") && output.includes('env.PANTHEON_ENV ("production")'),
    output.slice(-1500),
  );

  check(
    "the dry run left the folder npm start serves untouched (pwa/dist: same folder, same files)",
    folderState(served) === servedBefore,
    "pwa/dist was rebuilt under the running server",
  );
  const after = await pwaStatuses(server.url);
  check("after the dry run, the PWA that npm start serves still answers 200", allOk(after), JSON.stringify(after));

  // A rebuild of the served folder itself (`npm run build:pwa`, a real deploy) keeps the folder and
  // replaces each file by a rename, so it is never gone under the server.
  const inode = statSync(served).ino;
  const stale = join(served, "left-by-an-older-build.js");
  cpSync(join(served, "app.js"), stale);
  const rebuilt = spawnSync(process.execPath, ["pwa/build.mjs"], { cwd: copy, encoding: "utf8" });
  check(
    "a rebuild under the running server keeps the served folder, replaces its files and drops stale ones",
    rebuilt.status === 0 &&
      statSync(served).ino === inode &&
      existsSync(join(served, "app.js")) &&
      existsSync(join(served, "qr.js")) &&
      !existsSync(stale) &&
      readdirSync(join(copy, "pwa")).every((f) => !f.startsWith(".dist-build-")),
    `${rebuilt.stderr}; inode ${inode} → ${statSync(served).ino}; ${readdirSync(served).join(", ")}`,
  );
  const afterRebuild = await pwaStatuses(server.url);
  check("after the rebuild, the served PWA answers 200", allOk(afterRebuild), JSON.stringify(afterRebuild));

  const bundle = join(copy, "dist/index.js");
  // The bundle is minified (wrangler.toml): the classes are found by the names the module exports.
  const exportsClasses = (code, names) =>
    names.every((name) =>
      new RegExp(`export\\s*\\{[^}]*\\bas ${name}\\b|export\\s*\\{[^}]*\\b${name}\\b[^}]*\\}`).test(code),
    );
  check(
    "the output holds the worker bundle with its Durable Objects",
    existsSync(bundle) && exportsClasses(readFileSync(bundle, "utf8"), ["AgentDO", "RegistryDO"]),
    "dist/index.js missing or without AgentDO",
  );
  const assets = ["index.html", "app.js", "sw.js", "manifest.webmanifest", "icon-192.png"];
  const missing = assets.filter((a) => !existsSync(join(copy, "dist/pwa", a)));
  check(
    "the PWA's assets were built into the dry run's own folder (dist/pwa) and shipped from it",
    missing.length === 0 && /Read \d+ files from the assets directory .*dist\/pwa/.test(output),
    `missing: ${missing.join(", ")}; ${output.match(/.*assets directory.*/)?.[0] ?? "no assets line"}`,
  );

  // docs/deployment.md states the bundle's size: wrangler's own gzip figure of this dry run, within 10%.
  const measured = Number(/Total Upload: [\d.]+ KiB \/ gzip: ([\d.]+) KiB/.exec(output)?.[1]);
  const stated = Number(/bundle is \*\*([\d,]+) KiB gzip\*\*/.exec(readme)?.[1].replace(/,/g, ""));
  check(
    `docs/deployment.md's bundle figure (${stated} KiB gzip) is within 10% of this dry run's (${measured.toFixed(0)} KiB)`,
    measured > 0 && stated > 0 && Math.abs(stated - measured) <= measured * 0.1,
    "update the figure and its date in docs/deployment.md",
  );

  const printed = [...output.matchAll(/^\s+(npx wrangler (?:queues|vectorize|r2|secret) .+)$/gm)].map((m) =>
    m[1].trim(),
  );
  const documented = [
    ...section.matchAll(/^\s*(npx wrangler (?:queues|vectorize|r2|secret) [^#\n]+?)\s*(?:#.*)?$/gm),
  ].map((m) => m[1].trim());
  check(
    "the dry run prints the one-time commands and creates nothing",
    printed.some((c) => c.startsWith("npx wrangler queues create")) && !output.includes("Created queue"),
    printed.join("\n"),
  );
  const notInReadme = printed.filter((c) => !documented.includes(c));
  const notPrinted = documented.filter((c) => !printed.includes(c));
  check(
    "every command the script prints is in docs/deployment.md's production section, and the reverse",
    notInReadme.length === 0 && notPrinted.length === 0,
    `not in the docs: ${notInReadme.join(" | ")}; docs only: ${notPrinted.join(" | ")}`,
  );
} catch (error) {
  const served = server ? `\nwrangler dev said:\n${server.output().slice(-3000)}` : "";
  check("the deploy check ran", false, `${error instanceof Error ? error.stack : String(error)}${served}`);
} finally {
  await server?.stop();
  rmSync(copy, { recursive: true, force: true });
}
finish();
