// The parts of the worker that load on first use work in the bundle as it ships (`wrangler dev`
// bundles with wrangler.toml's [alias], which the workerd tests do not see): the MCP client (the
// agents SDK's, behind workers/mcp-client-lazy.ts) connects a server, lists and calls its tools;
// the openai SDK loads on an agent's first model call, and a second call after it still answers (the
// tool call's arguments checked by @cfworker/json-schema, loaded on first use too);
// the OpenCode format (and its YAML library) loads on the first export or import; re2js on the first
// deny pattern; and the bundle's zod, evaluated on first use (workers/bundle/zod-on-first-use.ts) and
// without zod's locales (workers/bundle/zod-without-locales.ts), still refuses bad input with zod's English messages. Prints `N passed, N failed`.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { freePort, startDevServer } from "../../scripts/dev-server.mjs";
import { makeCall, makeChecks } from "./check-kit.mjs";
import { root } from "./memory-harness.mjs";

const token = `pa_${randomBytes(12).toString("hex")}`;
const scratch = await mkdtemp(join(tmpdir(), "pantheon-lazy-"));
const { check, finish } = makeChecks();
const call = makeCall(token);

/** A test double (TypeScript under test/doubles) bundled for Node and started. */
async function double(file, start) {
  const outfile = join(scratch, `${start}.mjs`);
  await build({
    entryPoints: [join(root, "test/doubles", file)],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "error",
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  return (await import(pathToFileURL(outfile).href))[start]();
}

let server;
const doubles = [];
try {
  const model = await double("scripted-model-server.ts", "startScriptedModelServer");
  const mcp = await double("mcp-server.ts", "startMcpTestServer");
  doubles.push(model.server, mcp.server);
  server = await startDevServer({
    port: await freePort(),
    token,
    persistTo: join(scratch, "state"),
    vars: {
      OPENAI_API_KEY: "sk-lazy-check",
      OPENAI_BASE_URL: `${model.url}/v1`,
      PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true",
    },
  });
  const host = new URL(mcp.url).hostname;

  const created = await call(server.url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "linker", runtime: { allowHosts: [host], tools: [] } }),
  });
  check("an agent allowed to reach the MCP double is created", created.status === 201, JSON.stringify(created));
  const tenant = `lazy-${randomBytes(4).toString("hex")}`;
  const url = `${mcp.url}?tenant=${tenant}`;
  const connected = await call(server.url, "/api/agents/linker/mcp", {
    method: "POST",
    body: JSON.stringify({ name: "calc", url }),
  });
  const names = (connected.body?.tools ?? []).map((t) => t.name).sort();
  check(
    "the first MCP connection of the isolate is ready and lists the server's tools",
    connected.status === 201 &&
      connected.body?.state === "ready" &&
      JSON.stringify(names) === JSON.stringify(["calc.add", "calc.echo"]),
    JSON.stringify(connected),
  );

  const modelName = `lazy-${randomBytes(4).toString("hex")}`;
  const script = [
    { toolCalls: [{ name: "calc.add", arguments: { a: 2, b: 3 } }] },
    { content: "the sum is 5" },
    { content: "second answer" },
  ];
  await fetch(`${model.url}/__script/${modelName}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(script),
  });
  const patched = await call(server.url, "/api/agents/linker", {
    method: "PATCH",
    body: JSON.stringify({ model: { provider: "openai", name: modelName } }),
  });
  check("the agent is moved to provider openai", patched.status === 200, JSON.stringify(patched));
  const first = await call(server.url, "/api/agents/linker/messages", {
    method: "POST",
    body: JSON.stringify({ content: "add 2 and 3" }),
  });
  check(
    "the first model call (the openai SDK loads) calls the MCP tool and answers",
    first.status === 200 && first.body?.status === "completed" && first.body?.reply?.content === "the sum is 5",
    JSON.stringify(first.body),
  );
  const calls = await (await fetch(`${new URL(mcp.url).origin}/__calls?tenant=${tenant}`)).json();
  check(
    "the MCP server received the call with its arguments",
    calls.length === 1 && calls[0].tool === "add" && calls[0].arguments.a === 2 && calls[0].arguments.b === 3,
    JSON.stringify(calls),
  );
  const second = await call(server.url, "/api/agents/linker/messages", {
    method: "POST",
    body: JSON.stringify({ content: "again" }),
  });
  check(
    "a second model call answers from the SDK already loaded",
    second.status === 200 && second.body?.reply?.content === "second answer",
    JSON.stringify(second.body),
  );

  const exported = await call(server.url, "/api/agents/linker/export?format=opencode", {
    headers: { accept: "application/json" },
  });
  const file = exported.body?.file ?? "";
  check(
    "the first OpenCode export (the YAML library loads) is the agent file with its front matter",
    exported.status === 200 && file.startsWith("---\ndescription: ") && file.includes(`\nmodel: openai/${modelName}\n`),
    JSON.stringify(exported),
  );
  const imported = await call(server.url, "/api/agents/import?format=opencode", {
    method: "POST",
    body: JSON.stringify({ name: "linker-copy", config: file }),
  });
  check(
    "the file imports back as a new agent with the same model",
    imported.status === 201 && imported.body?.agent?.model?.name === modelName,
    JSON.stringify(imported),
  );
  const broken = await call(server.url, "/api/agents/import?format=opencode", {
    method: "POST",
    body: JSON.stringify({ name: "linker-broken", config: "---\nmode: [unclosed\n---\nhi\n" }),
  });
  check("a file whose YAML does not parse is refused with 400, not 500", broken.status === 400, JSON.stringify(broken));

  // re2js evaluates on the first pattern compiled (workers/bundle/re2js-on-first-use.ts): a pattern RE2 cannot
  // run is refused with its reason, and one it can is taken (the positive control).
  const gate = (pattern) => ({ runtime: { tools: [], gates: [{ name: "no-echo", kind: "deny-pattern", pattern }] } });
  const badGate = await call(server.url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "gated-bad", ...gate("(a)\\1") }),
  });
  check(
    "a deny pattern RE2 cannot run (a backreference) is refused with 400 and the reason",
    badGate.status === 400 && JSON.stringify(badGate.body).includes("backreferences"),
    JSON.stringify(badGate),
  );
  const goodGate = await call(server.url, "/api/agents", {
    method: "POST",
    body: JSON.stringify({ name: "gated-good", ...gate("\\bdrop\\s+table\\b") }),
  });
  check("a deny pattern RE2 runs is taken", goodGate.status === 201, JSON.stringify(goodGate));

  const refused = await call(server.url, "/api/agents", { method: "POST", body: JSON.stringify({ name: 42 }) });
  const issues = JSON.stringify(refused.body);
  check(
    "a field of the wrong type is refused with 400 and zod's English message (the bundle's zod has no other locales)",
    refused.status === 400 && issues.includes("expected string, received number"),
    issues,
  );
} catch (error) {
  check("the check ran to the end", false, error instanceof Error ? error.stack : String(error));
} finally {
  await server?.stop();
  for (const s of doubles) {
    s.closeAllConnections?.();
    s.close();
  }
  await rm(scratch, { recursive: true, force: true });
}
finish();
