CREATE TABLE `commits` (
	`key` text PRIMARY KEY NOT NULL,
	`task` integer NOT NULL,
	`outcome` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `feature` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`title` text NOT NULL,
	`status` text NOT NULL,
	`orchestrator` text NOT NULL,
	`worker_template` text NOT NULL,
	`context_files` text NOT NULL,
	`sessions` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `files` (
	`path` text PRIMARY KEY NOT NULL,
	`content` text NOT NULL,
	`version` integer NOT NULL,
	`task` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `overlays` (
	`task` integer NOT NULL,
	`path` text NOT NULL,
	`content` text,
	`base_version` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`task`, `path`)
);
--> statement-breakpoint
CREATE TABLE `plan_comments` (
	`id` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`line` integer NOT NULL,
	`body` text NOT NULL,
	`author` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `plan_versions` (
	`version` integer PRIMARY KEY NOT NULL,
	`markdown` text NOT NULL,
	`author` text NOT NULL,
	`created_at` integer NOT NULL,
	`approved_by` text,
	`approved_at` integer
);
--> statement-breakpoint
CREATE TABLE `tasks` (
	`number` integer PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`status` text NOT NULL,
	`summary` text,
	`question` text,
	`answer` text,
	`answered_by` text,
	`spec` text,
	`worker` text,
	`run_ids` text DEFAULT '[]' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`diff` text,
	`started_at` integer,
	`completed_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_key_unique` ON `tasks` (`key`);--> statement-breakpoint
CREATE TABLE `tombstones` (
	`path` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
