/** Word wrapping of one paragraph for the terminal (push-failures' reasons). */

/**
 * `text` as lines of at most `width` characters (a word longer than that is cut into pieces),
 * each prefixed by `indent`. Whitespace runs become one space; an empty text gives no line.
 */
export function wrapText(text: string, width: number, indent = ""): string[] {
  const room = Math.max(10, width - indent.length);
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    for (let piece = word; piece.length > 0; ) {
      const gap = current ? 1 : 0;
      if (current.length + gap + piece.length <= room) {
        current += (gap ? " " : "") + piece;
        piece = "";
      } else if (!current && piece.length > room) {
        lines.push(piece.slice(0, room));
        piece = piece.slice(room);
      } else {
        lines.push(current);
        current = "";
      }
    }
  }
  if (current) lines.push(current);
  return lines.map((l) => indent + l);
}
