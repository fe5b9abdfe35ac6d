// `npm run deploy`: builds everything the worker ships (the PWA into pwa/dist) and deploys the
// production environment with wrangler, on the Node that scripts/with-node22.sh brings.
//   npm run deploy                          build, then `wrangler deploy --env production`
//   npm run deploy -- --setup               first create the queues and the Vectorize index (an
//                                           "already exists" answer is fine), then deploy
//   npm run deploy -- --dry-run [--outdir d] build, print the one-time commands instead of running
//                                           them, and bundle offline: `wrangler deploy --dry-run
//                                           --env production --outdir d --assets d/pwa` (default
//                                           dist/); the PWA is built into d/pwa, never into the
//                                           pwa/dist a running `npm start` serves
// docs/deployment.md's "Configuration for production" lists the same commands (test/node/deploy.check.mjs
// keeps them in step).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { vapidKeyJson } from "./vapid-key.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Dimensions of the production embedder (Workers AI bge-small-en-v1.5); the doctor checks the index against it. */
export const vectorDimensions = 384;

/**
 * The one-time wrangler commands the production environment needs: its queues (and dead-letter
 * queue), the R2 bucket for pictures, and the Vectorize index with the metadata indexes memory filters
 * on, read from wrangler.toml.
 * @example
 * setupCommands(readFileSync("wrangler.toml", "utf8"))[0]; // "npx wrangler queues create pantheon-bus"
 */
export function setupCommands(toml) {
  const production = toml.slice(toml.indexOf("[env.production]"));
  const queues = [
    ...new Set([...production.matchAll(/^\s*(?:queue|dead_letter_queue)\s*=\s*"([^"]+)"/gm)].map((m) => m[1])),
  ];
  const indexes = [...new Set([...production.matchAll(/^\s*index_name\s*=\s*"([^"]+)"/gm)].map((m) => m[1]))];
  const buckets = [...new Set([...production.matchAll(/^\s*bucket_name\s*=\s*"([^"]+)"/gm)].map((m) => m[1]))];
  return [
    ...queues.map((q) => `npx wrangler queues create ${q}`),
    ...buckets.map((b) => `npx wrangler r2 bucket create ${b}`),
    ...indexes.flatMap((i) => [
      `npx wrangler vectorize create ${i} --dimensions=${vectorDimensions} --metric=cosine`,
      `npx wrangler vectorize create-metadata-index ${i} --property-name=source --type=string`,
      `npx wrangler vectorize create-metadata-index ${i} --property-name=kind --type=string`,
    ]),
  ];
}

/** The secrets production reads (values are set with wrangler, never written in the repo). */
export const secretCommands = [
  "npx wrangler secret put PANTHEON_ADMIN_TOKEN --env production",
  "npx wrangler secret put OPENAI_API_KEY --env production",
  "npx wrangler secret put ANTHROPIC_API_KEY --env production",
  "npx wrangler secret put PANTHEON_SECRETS_KEY --env production",
];

function run(command, args) {
  console.log(`\n$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  return result.status ?? 1;
}

async function main() {
  const { values } = parseArgs({
    options: { "dry-run": { type: "boolean" }, setup: { type: "boolean" }, outdir: { type: "string" } },
    strict: true,
  });
  // A dry run builds the PWA into its own folder beside its bundle: pwa/dist may be what a running
  // `wrangler dev` (npm start) serves, and a rebuild under it left every PWA file a 404 until restart.
  const outdir = resolve(values.outdir ?? join(root, "dist"));
  const pwaOut = values["dry-run"] ? join(outdir, "pwa") : join(root, "pwa/dist");
  console.log(`Building the PWA (${relative(root, pwaOut) || pwaOut})…`);
  const { buildPwa } = await import(pathToFileURL(join(root, "pwa/build.mjs")).href);
  const files = await buildPwa({ outdir: pwaOut });
  console.log(`pwa: built ${files.length} files`);

  const setup = setupCommands(readFileSync(join(root, "wrangler.toml"), "utf8"));
  if (values["dry-run"]) {
    console.log("\nOne-time setup (not run in a dry run; `npm run deploy -- --setup` runs it):");
    for (const command of setup) console.log(`  ${command}`);
    console.log("\nSecrets (each asks for its value):");
    for (const command of secretCommands) console.log(`  ${command}`);
    return run("npx", [
      "wrangler",
      "deploy",
      "--dry-run",
      "--env",
      "production",
      "--outdir",
      outdir,
      "--assets",
      pwaOut,
    ]);
  }
  if (values.setup) {
    for (const command of setup) {
      const [bin, ...args] = command.split(" ");
      // An existing queue, index or bucket answers an error; that is the state we want.
      if (run(bin, args) !== 0) console.log("(continuing: it may exist already)");
    }
    // Web Push's VAPID key, made here so the value never passes through a terminal or a file.
    // Run again, it replaces the key: every device subscribes anew the next time it opens the app.
    console.log("\n$ npx wrangler secret put PANTHEON_VAPID_KEY --env production  (a new key, piped)");
    const put = spawnSync("npx", ["wrangler", "secret", "put", "PANTHEON_VAPID_KEY", "--env", "production"], {
      cwd: root,
      input: vapidKeyJson(),
      stdio: ["pipe", "inherit", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    if (put.status !== 0) console.log("(continuing: set PANTHEON_VAPID_KEY later with node scripts/vapid-key.mjs | …)");
  }
  return run("npx", ["wrangler", "deploy", "--env", "production"]);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(error?.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? 2 : 1);
    },
  );
}
