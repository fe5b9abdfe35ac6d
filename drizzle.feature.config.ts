import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./durable-objects/feature/schema.ts",
  out: "./migrations/feature",
});
