/**
 * `tas-sync schema --markdown`: "the API as observed", a page people read instead of guessing
 * (pure). The contract's open questions answered first, then one section per entity with every
 * path seen, its types, presence, values and numeric range.
 */

import { escapeControls } from "../text/escape.js";
import { answerGaps, contractGaps, PathIndex } from "./gaps.js";
import type { ObservedPath } from "./port.js";
import { cappedText, groupByEntity, mergeCompanies, presentText, typesText } from "./report.js";

export interface MarkdownOptions {
  /** Companies the page covers (all observed ones when not filtered). */
  companyIds: readonly number[];
  valueCap: number;
  /** When the page was written (ISO 8601). */
  at: string;
}

/** Text in a code span, safe in a table cell: controls escaped, a backtick inside fenced by two. */
export function code(text: string): string {
  const t = escapeControls(text);
  if (t === "") return "(empty)";
  return t.includes("`") ? `\`\` ${t} \`\`` : `\`${t}\``;
}

/** A markdown table; pipes in cells escaped (a code span needs it too), line breaks flattened. */
function table(header: string[], rows: string[][]): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const line = (cells: string[]) => `| ${cells.map(cell).join(" | ")} |`;
  return [line(header), `|${header.map(() => "---").join("|")}|`, ...rows.map(line)].join("\n");
}

function valuesCell(p: ObservedPath, valueCap: number): string {
  if (p.valuesCapped) return cappedText(p, valueCap);
  return p.values.map((v) => `${code(v.value)} ${v.count}`).join(", ");
}

export function observedMarkdown(paths: readonly ObservedPath[], opts: MarkdownOptions): string {
  const merged = mergeCompanies(paths, opts.valueCap);
  const companies = opts.companyIds.length ? opts.companyIds.join(", ") : "none";
  const out = [
    "# The Test Automation Service as observed",
    "",
    `Written by \`tas-sync schema --markdown\` at ${opts.at} from the records the mirror holds`,
    `for company ${companies}. Types, presence and values count the records held now, the`,
    "companies' together; min and max are the extremes ever seen. `tas-sync schema --changes`",
    "lists what changed, run by run.",
    "",
  ];
  if (merged.length === 0)
    out.push("Nothing observed yet: `tas-sync sync` observes every new or changed record.", "");
  out.push(
    "## What the contract leaves open",
    "",
    table(
      ['The contract says "not shown"', "Section", "Seen"],
      answerGaps(contractGaps(opts.valueCap, code), new PathIndex(merged)).map(({ gap, answer }) => [
        gap.question,
        gap.section,
        answer,
      ]),
    ),
    "",
  );
  for (const g of groupByEntity(merged)) {
    out.push(
      `## ${g.entity}`,
      "",
      `${g.count ?? "?"} held, ${g.paths.length} path(s).`,
      "",
      table(
        ["Path", "Types", "Present", "Values", "Min", "Max"],
        g.paths.map((p) => [
          code(p.path),
          typesText(p),
          presentText(p, g.count),
          valuesCell(p, opts.valueCap),
          p.minNumber === null ? "" : String(p.minNumber),
          p.maxNumber === null ? "" : String(p.maxNumber),
        ]),
      ),
      "",
    );
  }
  return out.join("\n");
}
