-- Every writer, on any node, logs the products it touches, so each node's in-memory product index catches up by
-- reading what came after the last change it saw (src/catalog/product-index.ts). Stock changes (orders) are left
-- out: no index keeps stock. The triggers take one transaction-scoped advisory lock, so product writes commit one
-- after another and the log's numbers become visible in order: a reader that sees a number has seen every smaller
-- one that will ever exist (gaps are writes that rolled back). drizzle's schema cannot declare triggers, so they
-- live in this hand-written migration.
CREATE FUNCTION "catalog_log_product_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(7201022);
	IF TG_OP = 'INSERT' THEN
		INSERT INTO "catalog_product_changes" ("product_id") VALUES (NEW."id");
	ELSIF TG_OP = 'DELETE' THEN
		INSERT INTO "catalog_product_changes" ("product_id") VALUES (OLD."id");
	ELSE
		INSERT INTO "catalog_product_changes" ("product_id") VALUES (OLD."id");
		IF NEW."id" <> OLD."id" THEN
			INSERT INTO "catalog_product_changes" ("product_id") VALUES (NEW."id");
		END IF;
	END IF;
	RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "catalog_product_changes_insert" AFTER INSERT ON "catalog_products"
	FOR EACH ROW EXECUTE FUNCTION "catalog_log_product_change"();
--> statement-breakpoint
CREATE TRIGGER "catalog_product_changes_delete" AFTER DELETE ON "catalog_products"
	FOR EACH ROW EXECUTE FUNCTION "catalog_log_product_change"();
--> statement-breakpoint
CREATE TRIGGER "catalog_product_changes_update"
	AFTER UPDATE OF "id", "name", "description", "category", "price_cents", "created_at" ON "catalog_products"
	FOR EACH ROW EXECUTE FUNCTION "catalog_log_product_change"();
