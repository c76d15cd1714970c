/** Reading a 2xx body that must be JSON of a given shape; anything else is a ResponseFormatError. */
import type { z } from "zod";
import { type Operation, ResponseFormatError } from "./errors.js";

export function parseBody<T extends z.ZodType>(
  text: string,
  schema: T,
  operation: Operation,
  status: number,
): z.infer<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ResponseFormatError({
      operation,
      status,
      code: "NOT_JSON",
      detail: "the response is not JSON",
    });
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const detail = result.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`)
      .join("; ");
    throw new ResponseFormatError({ operation, status, code: "UNEXPECTED_SHAPE", detail });
  }
  return result.data;
}
