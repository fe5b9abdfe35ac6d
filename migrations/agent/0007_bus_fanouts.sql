CREATE TABLE `bus_fanouts` (
	`id` text PRIMARY KEY NOT NULL,
	`targets` text NOT NULL,
	`question` text NOT NULL,
	`policy` text NOT NULL,
	`conversation_id` text NOT NULL,
	`depth` integer NOT NULL,
	`replies` text NOT NULL,
	`critiques_sent` integer DEFAULT false NOT NULL,
	`status` text NOT NULL,
	`result` text,
	`created_at` integer NOT NULL,
	`decided_at` integer
);
