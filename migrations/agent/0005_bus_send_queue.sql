CREATE TABLE `bus_send_queue` (
	`id` text PRIMARY KEY NOT NULL,
	`message` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
DROP INDEX `bus_outbox_run`;--> statement-breakpoint
ALTER TABLE `bus_outbox` ADD `reply` text;--> statement-breakpoint
CREATE INDEX `bus_outbox_run` ON `bus_outbox` (`run_id`,`call_id`);