CREATE INDEX "schema_changes_open_idx" ON "schema_changes" USING btree ("company_id") WHERE acknowledged_at IS NULL;--> statement-breakpoint
CREATE INDEX "schema_changes_run_idx" ON "schema_changes" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "sync_runs_company_run_idx" ON "sync_runs" USING btree ("company_id","id");--> statement-breakpoint
CREATE INDEX "sync_runs_success_idx" ON "sync_runs" USING btree ("company_id","started_at") WHERE status IN ('succeeded', 'partial') AND trigger <> 'replay';--> statement-breakpoint
CREATE INDEX "sync_runs_running_idx" ON "sync_runs" USING btree ("id") WHERE status = 'running';