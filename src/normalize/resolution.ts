/** Screen resolution strings of a plan's `resolutions` map ("1024x768"). */

export interface Resolution {
  width: number | null;
  height: number | null;
}

// "1024x768", "1024 x 768", "1024X768"; surrounding whitespace tolerated.
const RESOLUTION = /^\s*(\d{1,9})\s*[xX]\s*(\d{1,9})\s*$/;

/** Width and height of "<width>x<height>"; both null when the string has another shape. */
export function parseResolution(s: string): Resolution {
  const m = typeof s === "string" ? RESOLUTION.exec(s) : null;
  if (m === null) return { width: null, height: null };
  return { width: Number(m[1]), height: Number(m[2]) };
}
