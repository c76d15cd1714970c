/**
 * RFC 4180 records: quoted fields may hold commas, doubled quotes and newlines (a CRLF inside
 * quotes becomes LF; a lone CR stays). Records end at LF or CRLF. A quote inside an unquoted
 * field is kept as a plain character (spreadsheets write such files); text after a closing
 * quote is an error for that record only.
 */

export interface CsvRecord {
  /** Physical line on which the record starts (1-based). */
  line: number;
  /** Physical line on which it ends (differs when a quoted cell holds newlines). */
  endLine: number;
  cells: string[];
  error: string | null;
}

/** Where the next part of a file starts. */
export interface CsvPart {
  /** Characters of the text consumed: a record that may go on in the next part is left unread. */
  consumed: number;
  /** The line the unread rest starts on. */
  line: number;
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** Every record of a whole text. */
export function tokenizeCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const part = tokenizeCsvPart(text, 1, true);
  for (let step = part.next(); !step.done; step = part.next()) records.push(step.value);
  return records;
}

/**
 * The records of `text`, which starts on `startLine`, one at a time (each dies young: a whole
 * chunk's records held at once would outlive the young generation); returns where the next part
 * starts. Unless `final`, a record not ended by a line end within the text (a quoted cell still
 * open) is left for the next call, with more text.
 */
export function* tokenizeCsvPart(
  text: string,
  startLine: number,
  final: boolean,
): Generator<CsvRecord, CsvPart> {
  const n = text.length;
  let pos = 0;
  let line = startLine;
  let consumed = 0;
  let consumedLine = startLine;
  while (pos < n) {
    const record: CsvRecord = { line, endLine: line, cells: [], error: null };
    let complete = true;
    for (;;) {
      let value: string;
      if (text.charCodeAt(pos) === QUOTE) {
        // Quoted field: copy up to each quote; a doubled quote is a literal one.
        value = "";
        pos++;
        for (;;) {
          const q = text.indexOf('"', pos);
          if (q === -1 && !final) {
            complete = false;
            break;
          }
          const chunk = text.slice(pos, q === -1 ? n : q);
          line += countNewlines(chunk);
          // A line end inside quotes is LF whichever system wrote the file (docs/push.md).
          value += chunk.includes("\r\n") ? chunk.replaceAll("\r\n", "\n") : chunk;
          if (q === -1) {
            record.error = "unterminated quoted field";
            pos = n;
            break;
          }
          if (text.charCodeAt(q + 1) === QUOTE) {
            value += '"';
            pos = q + 2;
          } else {
            pos = q + 1;
            break;
          }
        }
        if (!complete) break;
        if (text.charCodeAt(pos) === CR && text.charCodeAt(pos + 1) === LF) pos++;
        const next = text.charCodeAt(pos);
        if (record.error === null && pos < n && next !== COMMA && next !== LF) {
          record.error = "unexpected text after a closing quote";
          const eol = text.indexOf("\n", pos);
          if (eol === -1 && !final) {
            complete = false;
            break;
          }
          pos = eol === -1 ? n : eol;
        }
      } else {
        const start = pos;
        let c = text.charCodeAt(pos);
        while (pos < n && c !== COMMA && c !== LF) c = text.charCodeAt(++pos);
        const end = c === LF && pos > start && text.charCodeAt(pos - 1) === CR ? pos - 1 : pos;
        value = text.slice(start, end);
      }
      record.cells.push(value);
      record.endLine = line;
      if (pos >= n) {
        complete = final;
        break;
      }
      const sep = text.charCodeAt(pos++);
      if (sep === LF) {
        line++;
        break;
      }
      // A comma at the very end of the text still ends an (empty) last field.
      if (pos >= n) {
        if (!final) complete = false;
        else record.cells.push("");
        break;
      }
    }
    if (!complete) break;
    consumed = pos;
    consumedLine = line;
    yield record;
  }
  return { consumed, line: consumedLine };
}

function countNewlines(s: string): number {
  let count = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) count++;
  return count;
}
