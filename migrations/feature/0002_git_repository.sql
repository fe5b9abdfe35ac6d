CREATE TABLE `git_files` (
	`path` text PRIMARY KEY NOT NULL,
	`parent` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`data` blob,
	`mtime` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `git_files_parent` ON `git_files` (`parent`);--> statement-breakpoint
CREATE TABLE `pushes` (
	`id` text PRIMARY KEY NOT NULL,
	`remote` text NOT NULL,
	`branch` text NOT NULL,
	`commit` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`started_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE TABLE `repo_state` (
	`id` integer PRIMARY KEY NOT NULL,
	`branch` text NOT NULL,
	`base_commit` text NOT NULL,
	`remote` text,
	`remote_ref` text,
	`token_secret` text
);
--> statement-breakpoint
CREATE TABLE `task_branches` (
	`task_key` text PRIMARY KEY NOT NULL,
	`branch` text NOT NULL,
	`base_commit` text NOT NULL,
	`conflict` text,
	`updated_at` integer NOT NULL
);
