/** Text helpers of the normalizers. Pure. */

/** The first `max` UTF-16 units of `s`, never splitting a surrogate pair (that would leave a lone half). */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  const last = s.charCodeAt(max - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
