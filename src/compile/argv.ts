import { UserError } from '../errors.js';

/**
 * Split a command line the way a POSIX shell splits words: whitespace separates, single quotes
 * keep everything literal, double quotes keep whitespace and honour `\"` `\\` `\$` `` \` ``,
 * a backslash outside quotes escapes the next character. The command then runs without a shell,
 * so shell operators (pipes, redirections, `&&`, `;`) and `$VAR` expansion are refused with a
 * message instead of being passed to the server as odd arguments.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) word += line[++i];
      else if (c === '$' || c === '`') refuseShellFeature(line, 'variable or command substitution');
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 < line.length) word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if ('|&;<>()'.includes(c)) {
      refuseShellFeature(line, `the shell operator "${c}"`);
    } else if (c === '$' || c === '`') {
      refuseShellFeature(line, 'variable or command substitution');
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== null) throw new UserError(`--command has an unterminated ${quote === '"' ? 'double' : 'single'} quote: ${line}`);
  if (inWord) words.push(word);
  if (words.length === 0) throw new UserError('--command is empty: give the command that starts the MCP server, e.g. --command "node dist/server.js".');
  return words;
}

function refuseShellFeature(line: string, feature: string): never {
  throw new UserError(
    `--command is run directly, without a shell, so ${feature} in "${line}" would not do what you expect. ` +
      `Pass environment variables with --env KEY=VALUE, or wrap the command in a shell explicitly: --command "sh -c '…'".`,
  );
}
