CREATE TABLE `a2a_push_attempts` (
	`delivery_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`task_id` text NOT NULL,
	`config_id` text NOT NULL,
	`at` integer NOT NULL,
	`status` integer,
	`outcome` text NOT NULL,
	`error` text,
	PRIMARY KEY(`delivery_id`, `attempt`)
);
--> statement-breakpoint
CREATE INDEX `a2a_push_attempts_task` ON `a2a_push_attempts` (`task_id`,`at`);--> statement-breakpoint
CREATE TABLE `a2a_push_configs` (
	`id` text NOT NULL,
	`task_id` text NOT NULL,
	`url` text NOT NULL,
	`token` text,
	`auth_scheme` text,
	`auth_credentials` text,
	`version` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`task_id`, `id`)
);
