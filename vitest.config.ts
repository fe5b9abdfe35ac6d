import { defineConfig } from "vitest/config";
import { cloudflareTest } from "@cloudflare/vitest-plugin";

// Every unit and integration test runs inside workerd, against the same wrangler.toml the
// product deploys with (local bindings: real Durable Objects, SQLite, Queues).
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: { PANTHEON_ADMIN_TOKEN: "test-admin-token" },
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/browser/**", "node_modules/**"],
    testTimeout: 30_000,
  },
});
