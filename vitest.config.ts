import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { startMcpTestServer } from "./test/doubles/mcp-server";
import { startScriptedModelServer } from "./test/doubles/scripted-model-server";

// Every unit and integration test runs inside workerd, against the same wrangler.toml the
// product deploys with (local bindings: real Durable Objects, SQLite, Queues). A scripted
// OpenAI-compatible model double listens on loopback so agents with provider "openai" reach it
// through the real `openai` SDK; a real MCP server (the official SDK) listens next to it for the
// agents' MCP client (MCP_TEST_URL).
export default defineConfig(async () => {
  const model = await startScriptedModelServer();
  const mcp = await startMcpTestServer();
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            PANTHEON_ADMIN_TOKEN: "test-admin-token",
            OPENAI_API_KEY: "sk-test-double-key",
            OPENAI_BASE_URL: `${model.url}/v1`,
            MODEL_DOUBLE_URL: model.url,
            MCP_TEST_URL: mcp.url,
            AIRTABLE_KEY: "secret-airtable-value-123",
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      exclude: ["test/browser/**", "node_modules/**"],
      testTimeout: 30_000,
      // test/security/fuzz.test.ts: FUZZ_SEED replays a seed, FUZZ_RUNS sets the cases per route.
      provide: { fuzzSeed: process.env.FUZZ_SEED ?? "", fuzzRuns: process.env.FUZZ_RUNS ?? "" },
    },
  };
});
