// Checks the embeddings sidecar with its real weights, in plain Node (workerd cannot spawn it):
// starts `node sidecar/embeddings-server.mjs` on a free port, talks to it through the OpenAI
// embeddings adapter (the same code the worker uses) and raw HTTP, prints the cosines, and exits
// non-zero when a similar pair scores below 0.5 or an unrelated one above 0.3. Last line:
// "N passed, N failed".
//   node test/embed/sidecar.check.mjs
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { cosine, makeLineChecks } from "../node/check-kit.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const { check, finish } = makeLineChecks();

const out = mkdtempSync(join(tmpdir(), "pantheon-sidecar-check-"));
await build({
  entryPoints: [join(root, "adapters/embed-openai/index.ts")],
  bundle: true,
  format: "esm",
  platform: "neutral",
  outfile: join(out, "index.mjs"),
  logLevel: "error",
});
const { makeOpenAiEmbedder } = await import(pathToFileURL(join(out, "index.mjs")).href);
rmSync(out, { recursive: true, force: true });

const child = spawn(process.execPath, [join(root, "sidecar/embeddings-server.mjs")], {
  env: { ...process.env, EMBEDDINGS_PORT: "0" },
  stdio: ["ignore", "pipe", "inherit"],
});
// However this script ends, the sidecar it started must not outlive it.
process.on("exit", () => child.kill("SIGTERM"));
const url = await new Promise((resolve, reject) => {
  let seen = "";
  const timer = setTimeout(() => reject(new Error(`no ready line within 60 s: ${seen}`)), 60_000);
  child.stdout.on("data", (chunk) => {
    seen += chunk;
    const match = /ready on (http:\/\/\S+)/.exec(seen);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
  child.once("exit", (code) => reject(new Error(`the sidecar exited with code ${code}: ${seen}`)));
});

try {
  const embed = makeOpenAiEmbedder({ baseURL: url, model: "use-lite", dimensions: 512, provider: "offline" });
  const pairs = [
    ["similar", "How do I reset my password?", "I forgot my password and need to change it"],
    ["similar", "The cat is sleeping on the sofa", "A kitten naps on the couch"],
    ["unrelated", "How do I reset my password?", "The weather in Paris is sunny today"],
    ["unrelated", "Quarterly revenue grew by eight percent", "My dog loves chasing tennis balls"],
  ];
  const vectors = await embed.embed(pairs.flatMap(([, a, b]) => [a, b]));
  pairs.forEach(([kind, a, b], i) => {
    const score = cosine(vectors[2 * i], vectors[2 * i + 1]);
    const ok = kind === "similar" ? score >= 0.5 : score <= 0.3;
    check(ok, `${kind.padEnd(9)} cosine ${score.toFixed(4)}  "${a}" / "${b}"`);
  });

  const texts = Array.from(
    { length: 70 },
    (_, i) => `memory number ${i}: the meeting moved to ${i % 7 === 0 ? "Friday" : "Monday"}`,
  );
  const batch = await embed.embed(texts);
  const [alone] = await embed.embed([texts[66]]);
  check(
    batch.length === 70 && batch.every((v) => v.length === 512),
    "70 texts (two batches) give 70 vectors of 512 dimensions",
  );
  check(cosine(batch[66], alone) > 0.9999, "a text embeds the same alone and inside a batch (order kept)");

  const bad = await fetch(`${url}/embeddings`, { method: "POST", body: JSON.stringify({ input: [42] }) });
  const badBody = await bad.json();
  check(
    bad.status === 400 && typeof badBody.error?.message === "string",
    `bad input answers ${bad.status} ${JSON.stringify(badBody)}`,
  );
  const error = await embed.embed([""]).then(
    () => undefined,
    (e) => e,
  );
  check(error === undefined, `an empty text embeds${error ? `: ${error.message}` : ""}`);
  const health = await fetch(url.replace(/\/v1$/, "/health")).then((r) => r.json());
  check(health.ok === true && health.dimensions === 512, `GET /health answers ${JSON.stringify(health)}`);
} catch (error) {
  check(false, `unexpected error: ${error instanceof Error ? error.stack : error}`);
} finally {
  child.kill("SIGTERM");
}

// The last line is what scripts/test.mjs counts.
finish();
