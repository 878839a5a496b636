CREATE TABLE `actor_events` (
	`actor_id` text NOT NULL,
	`revision` integer NOT NULL,
	`snapshot` text NOT NULL,
	`at` integer NOT NULL,
	PRIMARY KEY(`actor_id`, `revision`)
);
--> statement-breakpoint
CREATE TABLE `actor_mail` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`actor_id` text NOT NULL,
	`event` text NOT NULL,
	`sender` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `actor_mail_actor` ON `actor_mail` (`actor_id`);--> statement-breakpoint
CREATE TABLE `catalog_rate_limits` (
	`key` text NOT NULL,
	`window` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`key`, `window`)
);
--> statement-breakpoint
CREATE TABLE `cluster_nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`url` text,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `actors` ADD `owner` text;--> statement-breakpoint
ALTER TABLE `actors` ADD `fence` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `actors` ADD `revision` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `actors_owner_status` ON `actors` (`owner`,`status`);