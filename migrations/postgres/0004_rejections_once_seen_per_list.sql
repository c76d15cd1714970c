CREATE TABLE "unlisted_plans" (
	"plan_id" bigint PRIMARY KEY NOT NULL,
	"company_id" bigint NOT NULL,
	"last_seen_at" timestamp(3) with time zone NOT NULL,
	"missing_since" timestamp(3) with time zone NOT NULL
);
--> statement-breakpoint
DROP VIEW "public"."v_plans";--> statement-breakpoint
DROP INDEX "rejected_records_run_idx";--> statement-breakpoint
ALTER TABLE "rejected_records" ADD COLUMN "company_id" bigint;--> statement-breakpoint
ALTER TABLE "rejected_records" ADD COLUMN "content_hash" text;--> statement-breakpoint
ALTER TABLE "rejected_records" ADD COLUMN "first_run_id" bigint;--> statement-breakpoint
ALTER TABLE "rejected_records" ADD COLUMN "last_run_id" bigint;--> statement-breakpoint
ALTER TABLE "rejected_records" ADD COLUMN "first_seen_at" timestamp(3) with time zone;--> statement-breakpoint
ALTER TABLE "rejected_records" ADD COLUMN "last_seen_at" timestamp(3) with time zone;--> statement-breakpoint
ALTER TABLE "rejected_records" ADD COLUMN "seen_runs" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "plans_seen_at" timestamp(3) with time zone;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "rejections_run_id" bigint;--> statement-breakpoint
UPDATE "rejected_records" r SET "company_id" = coalesce(s."company_id", 0), "content_hash" = 'legacy:' || r."id",
  "first_run_id" = r."run_id", "last_run_id" = r."run_id",
  "first_seen_at" = coalesce(s."started_at", 'epoch'), "last_seen_at" = coalesce(s."started_at", 'epoch')
  FROM "rejected_records" r0 LEFT JOIN "sync_runs" s ON s."id" = r0."run_id" WHERE r0."id" = r."id";--> statement-breakpoint
ALTER TABLE "rejected_records" ALTER COLUMN "company_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "rejected_records" ALTER COLUMN "content_hash" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "rejected_records" ALTER COLUMN "first_run_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "rejected_records" ALTER COLUMN "last_run_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "rejected_records" ALTER COLUMN "first_seen_at" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "rejected_records" ALTER COLUMN "last_seen_at" SET NOT NULL;--> statement-breakpoint
UPDATE "sync_state" SET "plans_seen_at" = "plans_listed_at",
  "rejections_run_id" = (SELECT max(r."id") FROM "sync_runs" r WHERE r."company_id" = "sync_state"."company_id"
    AND r."trigger" <> 'replay' AND r."status" IN ('succeeded', 'partial'));--> statement-breakpoint
CREATE INDEX "unlisted_plans_company_idx" ON "unlisted_plans" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "rejected_records_company_run_idx" ON "rejected_records" USING btree ("company_id","last_run_id");--> statement-breakpoint
ALTER TABLE "rejected_records" DROP COLUMN "run_id";--> statement-breakpoint
CREATE VIEW "public"."v_rejected_now" AS (select "rejected_records"."id", "rejected_records"."company_id", "rejected_records"."entity", "rejected_records"."entity_id", "rejected_records"."content_hash", "rejected_records"."reason", "rejected_records"."first_run_id", "rejected_records"."last_run_id", "rejected_records"."first_seen_at", "rejected_records"."last_seen_at", "rejected_records"."seen_runs", "rejected_records"."raw_json" from "rejected_records" inner join "sync_state" on ("sync_state"."company_id" = "rejected_records"."company_id" and "sync_state"."rejections_run_id" = "rejected_records"."last_run_id"));--> statement-breakpoint
CREATE VIEW "public"."v_plans" AS (select "plans"."id", "plans"."company_id", "plans"."project_id", "plans"."plan_name", "plans"."group_plan", "plans"."description", "plans"."enabled", "plans"."plan_parallel_test_limit", "plans"."alerts_enabled", "plans"."failed_test_retry_count", "plans"."screen_shot_type", "plans"."video_enabled", "plans"."performance_data_enabled", "plans"."clear_app_data", "plans"."platform", "plans"."period_type", "plans"."period_start_at", "plans"."period_end_at", "plans"."period_once_at", "plans"."period_repeat_minutes", "plans"."period_days_of_week", "plans"."raw_json", "plans"."content_hash", "plans"."first_seen_at", "plans"."seen_at", "plans"."deleted_at", CASE WHEN "plans"."deleted_at" IS NOT NULL THEN "plans"."seen_at"
        WHEN "unlisted_plans"."last_seen_at" IS NOT NULL THEN "unlisted_plans"."last_seen_at"
        WHEN "sync_state"."plans_seen_at" > "plans"."seen_at" THEN "sync_state"."plans_seen_at" ELSE "plans"."seen_at" END as "last_seen_at" from "plans" left join "sync_state" on "sync_state"."company_id" = "plans"."company_id" left join "unlisted_plans" on "unlisted_plans"."plan_id" = "plans"."id");