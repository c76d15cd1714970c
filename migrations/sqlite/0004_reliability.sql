CREATE TABLE `sync_state` (
	`company_id` integer PRIMARY KEY NOT NULL,
	`lease_token` text,
	`lease_host` text,
	`lease_pid` integer,
	`lease_expires_at` text,
	`applied_started_at` text,
	`applied_run_id` integer,
	`alert_state` text,
	`alert_changed_at` text
);
--> statement-breakpoint
ALTER TABLE `scenario_requests` ADD `scenario_id_source` text;--> statement-breakpoint
ALTER TABLE `sync_runs` ADD `owner_host` text;--> statement-breakpoint
ALTER TABLE `sync_runs` ADD `owner_pid` integer;--> statement-breakpoint
ALTER TABLE `sync_runs` ADD `heartbeat_at` text;--> statement-breakpoint
UPDATE `scenario_requests` SET `scenario_id_source` = 'answer' WHERE `scenario_id` IS NOT NULL;--> statement-breakpoint
UPDATE `scenario_requests` SET `status` = 'blocked' WHERE `status` = 'failed' AND `error_code` = 'PARENT_ID_UNKNOWN';--> statement-breakpoint
INSERT INTO `sync_state` (`company_id`, `applied_started_at`, `applied_run_id`)
  SELECT `company_id`, max(`started_at`), `id` FROM `sync_runs` WHERE `status` IN ('succeeded', 'partial') GROUP BY `company_id`;
