CREATE TABLE `secret_grants` (
	`name` text PRIMARY KEY NOT NULL,
	`granted_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`iv` text NOT NULL,
	`data` text NOT NULL,
	`fingerprint` text NOT NULL,
	`updated_at` integer NOT NULL
);
