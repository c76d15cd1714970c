CREATE INDEX `schema_changes_open_idx` ON `schema_changes` (`company_id`) WHERE acknowledged_at IS NULL;--> statement-breakpoint
CREATE INDEX `schema_changes_run_idx` ON `schema_changes` (`run_id`);--> statement-breakpoint
CREATE INDEX `sync_runs_company_run_idx` ON `sync_runs` (`company_id`,`id`);--> statement-breakpoint
CREATE INDEX `sync_runs_success_idx` ON `sync_runs` (`company_id`,`started_at`) WHERE status IN ('succeeded', 'partial') AND trigger <> 'replay';--> statement-breakpoint
CREATE INDEX `sync_runs_running_idx` ON `sync_runs` (`id`) WHERE status = 'running';