CREATE TABLE `gateway_settings` (
	`kind` text PRIMARY KEY NOT NULL,
	`config` text NOT NULL,
	`last_update_id` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `gateway_threads` (
	`kind` text NOT NULL,
	`external_id` text NOT NULL,
	`session_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`kind`, `external_id`)
);
--> statement-breakpoint
CREATE INDEX `gateway_threads_session` ON `gateway_threads` (`session_id`);