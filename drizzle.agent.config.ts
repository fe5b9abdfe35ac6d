import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./durable-objects/agent/schema/index.ts",
  out: "./migrations/agent",
});
