-- Product search: trigram indexes (pg_trgm) over name and description answer case-insensitive substring
-- queries (ILIKE '%term%') of 3 or more characters without reading every product; a shorter term has no
-- trigram to look up and is answered by a scan, as on SQLite. drizzle's schema cannot declare an operator class
-- index on an extension's type, so it lives in this hand-written migration.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX "catalog_products_name_trgm" ON "catalog_products" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "catalog_products_description_trgm" ON "catalog_products" USING gin ("description" gin_trgm_ops);
