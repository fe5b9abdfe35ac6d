import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./durable-objects/registry/schema.ts",
  out: "./migrations/registry",
});
