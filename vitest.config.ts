import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { startA2aTestServer } from "./test/doubles/a2a-server";
import { startExfilListener } from "./test/doubles/exfil-server";
import { startMcpTestServer } from "./test/doubles/mcp-server";
import { startScriptedModelServer } from "./test/doubles/scripted-model-server";
import { startTelegramDouble, testBotToken } from "./test/doubles/telegram-server";
import { startGitServer } from "./test/doubles/git-server.mjs";
import { startPushServiceDouble } from "./test/doubles/push-service";
import { webcrypto } from "node:crypto";

// Every unit and integration test runs inside workerd, against the same wrangler.toml the
// product deploys with (local bindings: real Durable Objects, SQLite, Queues). A scripted
// OpenAI-compatible model double listens on loopback so agents with provider "openai" reach it
// through the real `openai` SDK; a real MCP server (the official SDK) listens next to it for the
// agents' MCP client (MCP_TEST_URL), and a listener that only records what reaches it stands in
// for an attacker's endpoint (EXFIL_LISTENER_URL).
// The doubles are on 127.0.0.1, so the tests turn on the loopback override of the outbound guard
// (off in wrangler.toml); agents still reach them only with "127.0.0.1" in runtime.allowHosts.
// AIRTABLE_KEY is the one secret declared for tools.
export default defineConfig(async () => {
  const model = await startScriptedModelServer();
  const mcp = await startMcpTestServer();
  // A remote A2A agent (the A2A SDK's own server classes) for agents' `ask_<name>` A2A tools.
  const a2a = await startA2aTestServer();
  const exfil = await startExfilListener();
  // The Telegram gateway's Bot API double (TELEGRAM_API_BASE) and the test bot's token.
  const telegram = await startTelegramDouble();
  // A git smart-HTTP remote (real `git http-backend`) and a GitHub pull-request API stand-in, for
  // features' import, push and pull requests (test/work/repo-remote.test.ts); its token is GIT_TEST_TOKEN.
  const gitServer = await startGitServer({ token: "test-git-token" });
  await gitServer.repo("acme/app", { "app.txt": "hello\n" });
  // A browser's push service (test/push) and the deployment's VAPID key, made fresh per run.
  const pushService = await startPushServiceDouble();
  const vapid = await webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"]);
  const { kty, crv, x, y, d } = await webcrypto.subtle.exportKey("jwk", vapid.privateKey);
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            PANTHEON_ADMIN_TOKEN: "test-admin-token",
            // The deployment key project secrets are sealed with (core/secrets).
            PANTHEON_SECRETS_KEY: "test-secrets-key-0123456789abcdef0123456789",
            OPENAI_API_KEY: "sk-test-double-key",
            OPENAI_BASE_URL: `${model.url}/v1`,
            MODEL_DOUBLE_URL: model.url,
            MCP_TEST_URL: mcp.url,
            A2A_TEST_URL: a2a.url,
            AIRTABLE_KEY: "secret-airtable-value-123",
            PANTHEON_TOOL_SECRETS: "AIRTABLE_KEY",
            PANTHEON_ALLOW_LOOPBACK_OUTBOUND: "true",
            // One private host the deployment admin opened (test/mcp/private-host.test.ts); every other stays shut.
            PANTHEON_OUTBOUND_PRIVATE_HOSTS: "mcp.corp.internal",
            EXFIL_LISTENER_URL: exfil.url,
            TELEGRAM_API_BASE: telegram.url,
            TELEGRAM_BOT_TOKEN: testBotToken,
            // The quota clock may be moved by the deployment admin (test/quotas): a test deployment only.
            PANTHEON_TEST_CLOCK: "1",
            GIT_REMOTE_URL: gitServer.url,
            GIT_TEST_TOKEN: "test-git-token",
            PANTHEON_GITHUB_API_BASE: `${gitServer.url}/api`,
            PUSH_SERVICE_URL: pushService.url,
            PANTHEON_VAPID_KEY: JSON.stringify({ kty, crv, x, y, d }),
            PANTHEON_VAPID_SUBJECT: "mailto:ops@pantheon.test",
          },
        },
      }),
    ],
    test: {
      // The fault-injection suite (`npm run test:faults`, PANTHEON_FAULTS=1) runs on its own.
      include: process.env.PANTHEON_FAULTS ? ["test/faults/**/*.test.ts"] : ["test/**/*.test.ts"],
      exclude: process.env.PANTHEON_FAULTS
        ? ["node_modules/**"]
        : ["test/browser/**", "test/faults/**", "node_modules/**"],
      testTimeout: 30_000,
      // The Durable Objects run in the tests' own isolate: when a test evicts one on purpose
      // (`state.abort("test: evicted")`), work that instance still had in flight rejects with that
      // error after the instance is gone, and nobody is left to await it. Only that error, from a
      // deliberate reset, is let pass; any other unhandled error still fails the run.
      onUnhandledError: (error: unknown) => {
        const e = error as { message?: string; durableObjectReset?: boolean };
        return !(e?.durableObjectReset === true && /^test: evict/.test(e.message ?? ""));
      },
      // The model SDKs are loaded before the tests, as the bundle has them (see the file).
      setupFiles: ["./test/setup/model-sdks.ts"],
      // Vitest 5 sends each fresh test worker one snapshot of every cached module of its file's
      // graph (code and source maps, the whole worker included); past ~the size the A2A SDK brought
      // the graph to, workerd refuses that WebSocket message (1009 "Message is too large") and the
      // worker dies. Without the on-disk cache there is no snapshot: modules are fetched one by one.
      fsModuleCache: false,
      // test/security/fuzz.test.ts: FUZZ_SEED replays a seed, FUZZ_RUNS sets the cases per route.
      provide: {
        fuzzSeed: process.env.FUZZ_SEED ?? "",
        fuzzRuns: process.env.FUZZ_RUNS ?? "",
        faultSeed: process.env.FAULT_SEED ?? "",
        faultRuns: process.env.FAULT_RUNS ?? "",
      },
    },
  };
});
