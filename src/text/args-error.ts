/** node:util parseArgs' errors, in our words: what is wrong, with which option, and the option meant. */
import { closestName } from "./suggest.js";

/** `known`: the long option names the command takes (without "--"). */
export function argsError(err: unknown, known: readonly string[]): string {
  const e = err as { code?: string; message?: string };
  const option = /'(-[^' ]+)/.exec(e.message ?? "")?.[1];
  switch (option ? e.code : undefined) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const near = option?.startsWith("--") ? closestName(option.slice(2), [...known]) : undefined;
      return `unknown option ${option}${near ? ` (did you mean --${near}?)` : ""}`;
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return /argument missing/.test(e.message ?? "")
        ? `option ${option} needs a value`
        : `option ${option} takes no value`;
    default:
      return e.message ?? String(err);
  }
}
