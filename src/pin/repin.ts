import { dirname, isAbsolute, join } from 'node:path';
import { shellQuote } from '../compile/source.js';
import { CLI_COMMAND } from '../version.js';

/**
 * How a person accepts a reviewed change of a pinned server: pin it again from the client
 * configuration it was pinned from (`configuration` as the pin file records it, relative to the
 * pin file), into the same pin file. Undefined when the pin names no configuration (a plain
 * lockfile). Said by the proxy when it holds an entry back and by the watch mode's issue.
 */
export function repinCommand(configuration: string | undefined, pinFile: string, server: string): string | undefined {
  if (configuration === undefined) return undefined;
  const path = isAbsolute(configuration) ? configuration : join(dirname(pinFile), configuration);
  return `${CLI_COMMAND} pin ${shellQuote(path)} --server ${shellQuote(server)} --lockfile ${shellQuote(pinFile)}`;
}
