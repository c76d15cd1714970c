ALTER TABLE "plans" RENAME COLUMN "last_seen_at" TO "seen_at";--> statement-breakpoint
DROP INDEX "plans_company_idx";--> statement-breakpoint
ALTER TABLE "plan_versions" ALTER COLUMN "raw_json" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "report_versions" ALTER COLUMN "raw_json" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "plans_listed_at" timestamp(3) with time zone;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "write_generation" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "plans_company_index_idx" ON "plans" USING btree ("company_id","id","content_hash","deleted_at");--> statement-breakpoint
CREATE VIEW "public"."v_plan_versions" AS (select "plan_versions"."version_id", "plan_versions"."id", "plan_versions"."content_hash", "plan_versions"."valid_from", "plan_versions"."valid_to", coalesce("plan_versions"."raw_json", "plans"."raw_json") as "raw_json", "plan_versions"."run_id" from "plan_versions" left join "plans" on "plans"."id" = "plan_versions"."id");--> statement-breakpoint
CREATE VIEW "public"."v_plans" AS (select "plans"."id", "plans"."company_id", "plans"."project_id", "plans"."plan_name", "plans"."group_plan", "plans"."description", "plans"."enabled", "plans"."plan_parallel_test_limit", "plans"."alerts_enabled", "plans"."failed_test_retry_count", "plans"."screen_shot_type", "plans"."video_enabled", "plans"."performance_data_enabled", "plans"."clear_app_data", "plans"."platform", "plans"."period_type", "plans"."period_start_at", "plans"."period_end_at", "plans"."period_once_at", "plans"."period_repeat_minutes", "plans"."period_days_of_week", "plans"."raw_json", "plans"."content_hash", "plans"."first_seen_at", "plans"."seen_at", "plans"."deleted_at", CASE WHEN "plans"."deleted_at" IS NULL AND "sync_state"."plans_listed_at" > "plans"."seen_at"
        THEN "sync_state"."plans_listed_at" ELSE "plans"."seen_at" END as "last_seen_at" from "plans" left join "sync_state" on "sync_state"."company_id" = "plans"."company_id");--> statement-breakpoint
CREATE VIEW "public"."v_report_versions" AS (select "report_versions"."version_id", "report_versions"."id", "report_versions"."content_hash", "report_versions"."valid_from", "report_versions"."valid_to", coalesce("report_versions"."raw_json", "scheduled_reports"."raw_json") as "raw_json", "report_versions"."run_id" from "report_versions" left join "scheduled_reports" on "scheduled_reports"."id" = "report_versions"."id");--> statement-breakpoint
UPDATE "plan_versions" v SET "raw_json" = NULL FROM "plans" p
  WHERE p."id" = v."id" AND p."content_hash" = v."content_hash";--> statement-breakpoint
UPDATE "report_versions" v SET "raw_json" = NULL FROM "scheduled_reports" r
  WHERE r."id" = v."id" AND r."content_hash" = v."content_hash";
