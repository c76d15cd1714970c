ALTER TABLE `sync_state` ADD `last_run_id` integer;--> statement-breakpoint
ALTER TABLE `sync_state` ADD `last_success_at` text;--> statement-breakpoint
INSERT INTO `sync_state` (`company_id`) SELECT DISTINCT `company_id` FROM `sync_runs` WHERE `status` <> 'running'
  ON CONFLICT (`company_id`) DO NOTHING;--> statement-breakpoint
UPDATE `sync_state` SET
  `last_run_id` = (SELECT max(r."id") FROM `sync_runs` r WHERE r."company_id" = `sync_state`."company_id" AND r."status" <> 'running'),
  `last_success_at` = (SELECT max(r."started_at") FROM `sync_runs` r WHERE r."company_id" = `sync_state`."company_id"
    AND r."status" IN ('succeeded', 'partial') AND r."trigger" <> 'replay');
