/** Specs of the push side: push, push-failures, retry-failed, resume-push, set-parent-id. */
import type { CommandSpec } from "../types.js";

export const pushSpec: CommandSpec = {
  name: "push",
  summary: "create the scenarios of a seed file, exactly once each, through the queue",
  help: `Usage: tas-sync push FILE [--wait] [--dry-run] [--skip-invalid] [--strict] [--allow-empty] [--config PATH]

FILE is NDJSON (.ndjson/.jsonl), a JSON array (.json) or CSV with a header row (.csv); one
create-scenario request per row (see docs/push.md, "Seed files"). The whole file is validated
first; every bad row is reported on stderr as FILE:LINE: field: reason. A field the reader
does not know is ignored, with one warning per name on stderr
(FILE:LINE: warning: descripton: unknown field (did you mean "description"?), ignored).

Rows are recorded in the database's outbox (scenario_requests) and one BullMQ job is queued per
row; children are queued once their parent is created. Running the same file again creates
nothing twice: rows already created (or that failed) are skipped and counted.

Options:
  --wait           run the workers in this process until every row is settled, then print
                   the summary (without it, the running daemon does the work)
  --dry-run        validate and print what would be created; needs no Redis, writes nothing
  --skip-invalid   queue the valid rows anyway; invalid rows (and rows whose parent is
                   invalid) are recorded in seed_rejections with their reasons
  --strict         unknown fields are problems, not warnings
  --allow-empty    a file without rows is not an error: say so and exit 0

Outcomes of a row: created (the service answered with the new scenario), exists (an earlier
attempt's answer was lost and the service already has it: not created twice), failed (with
a reason code; see tas-sync push-failures). A row whose company's credentials are refused is
held: only that company's rows wait (see push-failures --held), the others go on.

Exit codes: 0 done (with --wait: every row created or exists); 1 some rows failed, wait for a
parent's id, or are held; 2 invalid or empty file (nothing queued) or bad usage/config;
130/143 stopped by SIGINT/SIGTERM (with --wait: unsettled rows stay queued).`,
  options: {
    wait: { type: "boolean" },
    "dry-run": { type: "boolean" },
    "skip-invalid": { type: "boolean" },
    strict: { type: "boolean" },
    "allow-empty": { type: "boolean" },
  },
  positionals: 1,
  load: () => import("../push.js").then((m) => m.runPush),
};

export const pushFailuresSpec: CommandSpec = {
  name: "push-failures",
  summary: "list failed push rows (or rows that wait: for a parent's id, or held) with their reasons",
  help: `Usage: tas-sync push-failures [--code CODE] [--blocked | --held] [--limit N] [--wide | --json] [--config PATH]

Lists rows of scenario_requests with status failed: key, company, project, reason code,
attempts and where the row came from (file:line), each followed by its whole last error,
indented and wrapped to the terminal's width (--wide: one line per row, the error last). With --blocked, lists instead the rows
that wait for their parent's scenario id (the parent exists on the service but the answer to
its create was lost); give it with tas-sync set-parent-id. With --held, the rows held back
because their company's credentials are refused (reason CREDENTIALS_REFUSED); they go on by
themselves once the credentials work, or with tas-sync resume-push --company ID. Without
--held, a line after the table says how many rows are held, per company, and why. Needs none
of the service's secrets.

Options:
  --code CODE      only this reason code (e.g. PROJECT_NOT_FOUND, PARENT_FAILED)
  --blocked        rows waiting for a parent's id instead of failed rows
  --held           rows held for refused credentials instead of failed rows
  --limit N        at most N rows (default 100)
  --wide           one line per row, with the whole error as its last column
  --json           one JSON object per row (snake_case keys)`,
  options: {
    code: { type: "string" },
    blocked: { type: "boolean" },
    held: { type: "boolean" },
    limit: { type: "string" },
    wide: { type: "boolean" },
    json: { type: "boolean" },
  },
  secretsWhenUsed: true,
  load: () => import("../outbox.js").then((m) => m.runPushFailures),
};

export const retryFailedSpec: CommandSpec = {
  name: "retry-failed",
  summary: "queue failed push rows again",
  help: `Usage: tas-sync retry-failed [--code CODE] [--key KEY] [--config PATH]

Moves failed rows back to pending and queues them (children again wait for their parent).
A row whose earlier attempt may have reached the service keeps that knowledge, so a name
clash on retry still counts as "exists", never as a duplicate.

Options:
  --code CODE      only rows that failed with this reason code
  --key KEY        only this row`,
  options: { code: { type: "string" }, key: { type: "string" } },
  load: () => import("../outbox.js").then((m) => m.runRetryFailed),
};

export const setParentIdSpec: CommandSpec = {
  name: "set-parent-id",
  summary: "give a scenario's id when its create answer was lost, so its children get created",
  help: `Usage: tas-sync set-parent-id KEY ID [--config PATH]

A row ends "exists" when the service created its scenario but the answer (with the new id)
was lost. Its children cannot be created without that id: they wait (status blocked, reason
PARENT_ID_UNKNOWN; see tas-sync push-failures --blocked). Look the scenario up in the
service by its project and name, then give its id here: the row records it and its waiting
children are queued (the daemon or push --wait creates them).

Exit codes: 0 recorded; 2 no such row, or the row is not one that exists without an id.`,
  options: {},
  positionals: 2,
  load: () => import("../outbox.js").then((m) => m.runSetParentId),
};

export const resumePushSpec: CommandSpec = {
  name: "resume-push",
  summary: "let held push rows go on (a company's credentials work again)",
  help: `Usage: tas-sync resume-push [--company ID] [--config PATH]

When the service refuses a company's credentials (a static token, or a password grant still
refused after authenticating again), that company's rows are held (push-failures --held);
every other company's rows go on. The daemon tries one held row of each such company now and
then (push.reconcileEveryMs) and lets the rest go on once it gets through. This lets them go
on at once: the held rows of company ID (without --company: of every company) are queued
again, and a paused push queue (paused in the dashboard) is resumed. A daemon reads its
config when it starts: restart it after changing credentials in the config.

Options:
  --company ID     only this company's held rows`,
  options: { company: { type: "string" } },
  load: () => import("../outbox.js").then((m) => m.runResumePush),
};
