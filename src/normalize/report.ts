/** A wire scheduled report (seed 2.2) to the `scheduled_reports` row and its child rows. */

import type { ReportAlertRow } from "../tables/index.js";
import type { WireReport } from "../wire/schemas.js";
import { isoToUtc } from "./time.js";
import type { NormalizedReport } from "./types.js";

/** Distinct values in order of first appearance; [] for a missing list. */
function distinct<T>(items: readonly T[] | null | undefined): T[] {
  return items ? Array.from(new Set(items)) : [];
}

/**
 * Normalize one scheduled report. `companyId` is the company it was fetched for (the
 * record does not carry it). Plan ids are kept even when no such plan is known.
 */
export function normalizeReport(wire: WireReport, companyId: number): NormalizedReport {
  const reportId = wire.id;
  const alerts: ReportAlertRow[] = [];
  let position = 0;
  for (const a of wire.alerts ?? []) {
    alerts.push({
      reportId,
      position: position++,
      alertType: a.alert_type ?? null,
      alertSendingStatus: a.alert_sending_status ?? null,
      target: a.target ?? null,
      enabled: a.enabled ?? null,
      unsubscribeLinkEliminated: a.unsubscribe_link_eliminated ?? null,
    });
  }
  return {
    report: {
      id: reportId,
      companyId,
      reportName: wire.report_name ?? null,
      contentMail: wire.content_mail ?? null,
      enabled: wire.enabled ?? null,
      frequency: wire.frequency ?? null,
      createdUser: wire.created_user ?? null,
      usageGauge: wire.usage_gauge ?? null,
      reportHour: isoToUtc(wire.report_hour),
      startDate: isoToUtc(wire.start_date),
      endDate: isoToUtc(wire.end_date),
    },
    planIds: distinct(wire.plan_id_list),
    recipients: distinct(wire.email_list),
    userRoles: distinct(wire.user_roles),
    statuses: distinct(wire.status),
    alerts,
  };
}
