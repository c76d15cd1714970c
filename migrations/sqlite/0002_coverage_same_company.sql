DROP VIEW `v_report_plan_coverage`;--> statement-breakpoint
CREATE VIEW `v_report_plan_coverage` AS SELECT r.id AS report_id, r.company_id, r.report_name, rp.plan_id, p.plan_name,
        p.deleted_at AS plan_deleted_at,
        CASE WHEN p.id IS NULL THEN 1 ELSE 0 END AS dangling
      FROM scheduled_reports r
      JOIN report_plans rp ON rp.report_id = r.id
      LEFT JOIN plans p ON p.id = rp.plan_id AND p.company_id = r.company_id
      WHERE r.deleted_at IS NULL;