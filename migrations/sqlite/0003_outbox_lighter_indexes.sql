DROP INDEX `scenario_requests_status_idx`;--> statement-breakpoint
DROP INDEX `scenario_requests_batch_idx`;--> statement-breakpoint
CREATE INDEX `scenario_requests_batch_idx` ON `scenario_requests` (`batch_id`);