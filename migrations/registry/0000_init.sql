CREATE TABLE `agents` (
	`name` text PRIMARY KEY NOT NULL,
	`description` text NOT NULL,
	`system_prompt` text NOT NULL,
	`model` text NOT NULL,
	`script` text,
	`script_source` text,
	`connections` text NOT NULL,
	`parent` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_hash_unique` ON `tokens` (`hash`);