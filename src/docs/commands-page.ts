/** docs/reference/commands.md: every command's --help text, as the CLI prints it. */
import { usage } from "../cli.js";
import { commands } from "../commands/index.js";
import { SIMULATE_USAGE } from "../simulator/command.js";
import { generatedNotice } from "./markdown.js";

export function commandsPage(): string {
  const sections = commands.map((c) => {
    const help = c.passthrough ? SIMULATE_USAGE : c.help;
    return `## ${c.name}\n\n${c.summary[0]?.toUpperCase()}${c.summary.slice(1)}.\n\n\`\`\`text\n${help.trimEnd()}\n\`\`\``;
  });
  return `${generatedNotice("the command catalog (src/commands/catalog/) and src/simulator/command.ts")}

# Command reference

The text of \`tas-sync --help\` and of each \`tas-sync <command> --help\`. How the commands
behave together (exit codes, error lines, signals, output formats) is in
[../commands.md](../commands.md).

\`\`\`text
${usage().trimEnd()}
\`\`\`

${commands.map((c) => `- [\`${c.name}\`](#${c.name}): ${c.summary}`).join("\n")}

${sections.join("\n\n")}
`;
}
