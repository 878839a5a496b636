-- Product search: a full-text index over name and description with the trigram tokenizer, which answers
-- case-insensitive substring queries of 3 or more characters. It reads its text from catalog_products
-- (external content, joined on rowid), so nothing is stored twice; the triggers below keep it in step with
-- every insert, delete and change of name or description, whoever writes. drizzle's schema cannot declare a
-- virtual table, so it lives in this hand-written migration.
CREATE VIRTUAL TABLE `catalog_products_search` USING fts5(
	`name`,
	`description`,
	content = 'catalog_products',
	content_rowid = 'rowid',
	tokenize = 'trigram case_sensitive 0'
);
--> statement-breakpoint
-- Index the products that exist already.
INSERT INTO `catalog_products_search` (`catalog_products_search`) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER `catalog_products_search_insert` AFTER INSERT ON `catalog_products` BEGIN
	INSERT INTO `catalog_products_search` (`rowid`, `name`, `description`) VALUES (new.`rowid`, new.`name`, new.`description`);
END;
--> statement-breakpoint
CREATE TRIGGER `catalog_products_search_delete` AFTER DELETE ON `catalog_products` BEGIN
	INSERT INTO `catalog_products_search` (`catalog_products_search`, `rowid`, `name`, `description`)
	VALUES ('delete', old.`rowid`, old.`name`, old.`description`);
END;
--> statement-breakpoint
-- Stock and price changes leave the index alone; only a new name or description is re-indexed.
CREATE TRIGGER `catalog_products_search_update` AFTER UPDATE OF `name`, `description` ON `catalog_products` BEGIN
	INSERT INTO `catalog_products_search` (`catalog_products_search`, `rowid`, `name`, `description`)
	VALUES ('delete', old.`rowid`, old.`name`, old.`description`);
	INSERT INTO `catalog_products_search` (`rowid`, `name`, `description`) VALUES (new.`rowid`, new.`name`, new.`description`);
END;
