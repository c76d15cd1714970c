/**
 * What the service's contract leaves "not shown" (its sections 2.3.2, 2.4 and 8), each with
 * where the observed schema answers it, and the answer (pure). A gap nothing answers yet says
 * "not observed yet".
 */

import type { ObservedPath } from "./port.js";
import { compareEntities, percent, shareOf, typeCounts, typesText } from "./report.js";
import { valuePolicy } from "./values.js";

const NOT_OBSERVED = "not observed yet";

/** A path of an entity, with the words that name it in an answer. */
interface Place {
  entity: string;
  path: string;
  label: string;
}

export interface Gap {
  /** The contract's question, in its words. */
  question: string;
  /** Where the contract asks it. */
  section: string;
  answer(paths: PathIndex): string;
  /** Why nothing may ever be observed here, said after "not observed yet". */
  unobservable?: string;
}

/** The merged paths (one API, see mergeCompanies) by entity and path. */
export class PathIndex {
  readonly #byKey = new Map<string, ObservedPath>();
  constructor(readonly paths: readonly ObservedPath[]) {
    for (const p of paths) this.#byKey.set(`${p.entity}\u0000${p.path}`, p);
  }
  get(entity: string, path: string): ObservedPath | undefined {
    return this.#byKey.get(`${entity}\u0000${path}`);
  }
  /** The paths of an entity (its own row left out), by path. */
  of(entity: string): ObservedPath[] {
    return this.paths
      .filter((p) => p.entity === entity && p.path !== "")
      .sort((a, b) => (a.path < b.path ? -1 : 1));
  }
  /** Entity names that start with `prefix`, in display order. */
  entities(prefix: string): string[] {
    return [...new Set(this.paths.map((p) => p.entity))]
      .filter((e) => e.startsWith(prefix))
      .sort(compareEntities);
  }
}

/** `code` in a markdown code span, safe in a table cell (see markdown.ts for the escaping). */
export type Code = (text: string) => string;

/** The string values seen at a place: "`YES` 50, `NO` 40", or what else is known of it. */
function valuesAt(p: ObservedPath | undefined, code: Code, valueCap: number): string | null {
  if (!p) return null;
  if (p.valuesCapped)
    return valuePolicy(p.entity, p.path) === "free"
      ? "free text or identifiers: values not kept"
      : `more than ${valueCap} distinct values (free text)`;
  if (p.values.length === 0) return `no string value (${typesText(p) || "no value"})`;
  return p.values.map((v) => `${code(v.value)} ${v.count}`).join(", ");
}

/** A gap about enum values, answered from the first place that was observed (each labelled when several). */
function values(question: string, section: string, places: Place[], valueCap: number, code: Code) {
  return {
    question,
    section,
    answer(index: PathIndex) {
      const seen = places
        .map((pl) => ({ pl, text: valuesAt(index.get(pl.entity, pl.path), code, valueCap) }))
        .filter((x) => x.text !== null);
      if (seen.length === 0) return NOT_OBSERVED;
      if (places.length === 1) return seen[0]?.text ?? NOT_OBSERVED;
      return seen.map((x) => `${x.pl.label}: ${x.text}`).join("; ");
    },
  };
}

/** "`alert_type` string, `target` string/null (in 40%), ..." for every path of an entity. */
function fieldsOf(index: PathIndex, entity: string, code: Code): string {
  const count = index.get(entity, "")?.present ?? null;
  const paths = index.of(entity);
  if (paths.length === 0) return NOT_OBSERVED;
  return paths
    .map((p) => {
      const share = shareOf(p, count);
      const some = share !== null && share < 1 ? ` (in ${percent(share)})` : "";
      return `${code(p.path)} ${Object.keys(typeCounts(p)).join("/")}${some}`;
    })
    .join(", ");
}

const NUMERIC: Place[] = [
  { entity: "scenario", path: "max_execution_time", label: "max_execution_time" },
  { entity: "plan", path: "plan_parallel_test_limit", label: "plan_parallel_test_limit" },
  { entity: "plan", path: "failed_test_retry_count", label: "failed_test_retry_count" },
  { entity: "period", path: "repeat_period", label: "repeat_period" },
];

/** The contract's gaps about the records' shape and values, in the contract's order. */
export function contractGaps(valueCap: number, code: Code): Gap[] {
  const v = (question: string, section: string, places: Place[]) =>
    values(question, section, places, valueCap, code);
  const one = (entity: string, path: string): Place[] => [{ entity, path, label: entity }];
  return [
    {
      ...v("Scenario `type` values beyond SELENIUM and APITest", "2.4", one("scenario", "type")),
      unobservable: "tas-sync reads no scenario: it only creates them",
    },
    v("Report `frequency` values beyond DAILY", "2.4", one("scheduled_report", "frequency")),
    v("Report `status` values beyond SUCCESS", "2.4", [
      { entity: "scheduled_report", path: "status[]", label: "scheduled_report" },
    ]),
    v("`alert_type` values beyond EMAIL", "2.4", [
      { entity: "report_alert", path: "alert_type", label: "report alerts" },
      { entity: "plan_alert", path: "alert_type", label: "plan alerts" },
    ]),
    v("`alert_sending_status` values beyond EVERY_TEST", "2.4", [
      { entity: "report_alert", path: "alert_sending_status", label: "report alerts" },
      { entity: "plan_alert", path: "alert_sending_status", label: "plan alerts" },
    ]),
    v("`period_type` values beyond MANUAL", "2.4", one("period", "period_type")),
    v("`screen_shot_type` values beyond YES and NO", "2.4", one("plan", "screen_shot_type")),
    {
      question: "Fields of a plan alert item",
      section: "2.4",
      answer: (index) => fieldsOf(index, "plan_alert", code),
    },
    {
      question: "Numeric bounds of the fields",
      section: "8",
      answer(index) {
        const seen = NUMERIC.map((pl) => ({ pl, p: index.get(pl.entity, pl.path) })).filter(
          (x) => x.p && x.p.minNumber !== null,
        );
        if (seen.length === 0) return NOT_OBSERVED;
        return seen.map(({ pl, p }) => `${code(pl.label)} ${p?.minNumber} to ${p?.maxNumber}`).join(", ");
      },
    },
    {
      question: "Keys of `mobile_app_metadata` per platform",
      section: "2.3.2",
      answer(index) {
        const entities = index.entities("mobile_app_metadata:");
        if (entities.length === 0) return NOT_OBSERVED;
        return entities
          .map((e) => `${e.slice("mobile_app_metadata:".length)}: ${fieldsOf(index, e, code)}`)
          .join("; ");
      },
    },
  ];
}

/** The answer to each gap, with the reason a gap may stay unanswered. */
export function answerGaps(gaps: readonly Gap[], index: PathIndex): { gap: Gap; answer: string }[] {
  return gaps.map((gap) => {
    const answer = gap.answer(index);
    return {
      gap,
      answer: answer === NOT_OBSERVED && gap.unobservable ? `${answer} (${gap.unobservable})` : answer,
    };
  });
}
