CREATE TABLE `actors` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`state` text NOT NULL,
	`snapshot` text NOT NULL,
	`deadline` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `actors_status_kind` ON `actors` (`status`,`kind`);--> statement-breakpoint
CREATE INDEX `actors_finished_at` ON `actors` (`finished_at`);