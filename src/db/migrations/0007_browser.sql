CREATE TABLE `browser_results` (
	`id` text PRIMARY KEY NOT NULL,
	`test` text NOT NULL,
	`url` text NOT NULL,
	`status` text NOT NULL,
	`result` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `browser_results_created_at` ON `browser_results` (`created_at`);--> statement-breakpoint
CREATE TABLE `browser_sessions` (
	`name` text PRIMARY KEY NOT NULL,
	`cookies` integer NOT NULL,
	`origins` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
