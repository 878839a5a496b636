import { defineConfig } from "drizzle-kit";

/** The PostgreSQL migrations, beside the SQLite ones of drizzle.config.ts (bun run db:generate writes both). */
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema.pg.ts",
  out: "./src/db/migrations-pg",
});
