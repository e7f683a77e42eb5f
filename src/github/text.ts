/** Words the Action's messages share. */

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The first seven hex digits of a commit, as GitHub shows it; other refs unchanged. */
export function shortSha(ref: string): string {
  return /^[0-9a-f]{40}$/i.test(ref) ? ref.slice(0, 7) : ref;
}
