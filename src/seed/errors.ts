/** Thrown when the seed format cannot be told from the file name. */
export class SeedFormatError extends Error {
  override readonly name = "SeedFormatError";
}
