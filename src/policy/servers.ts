/**
 * Which servers a review covers, and what each is compared with. The baseline belongs to the
 * base: which servers existed and where each one's lockfile lived come from the base commit's
 * config, so a pull request cannot move its own baseline (point `lockfile` or `cwd` elsewhere
 * and every entry would count as new) nor skip a server (drop it from the config). How to
 * reach each server now comes from the head's config. Servers are matched by name.
 */

/** A server as a config lists it: its name and its lockfile's path from the repository root. */
export interface ServerLocation {
  name: string;
  lockfile: string;
}

export interface PlannedServer<T extends ServerLocation> {
  name: string;
  /** The head's entry: how to review it now. Absent when the head dropped the server. */
  head?: T;
  /** The base's lockfile. Absent when the base does not list the server (a new one). */
  baseLockfile?: string;
  /** What changed about the server itself, when something did. */
  change?: 'moved' | 'added' | 'removed';
  /** For people: what changed, and what the review compares with because of it. */
  note?: string;
}

/**
 * Pair the head's servers with the base's by name. `base` is undefined when the base commit
 * has no config (a repository adopting one): each server is then compared with the lockfile at
 * its head path, as a single-server review is. `only` keeps one server (the `server` input),
 * on either side.
 */
export function planServers<T extends ServerLocation>(head: T[], base: ServerLocation[] | undefined, only?: string): PlannedServer<T>[] {
  const heads = only === undefined ? head : head.filter((s) => s.name === only);
  if (base === undefined) return heads.map((s) => ({ name: s.name, head: s, baseLockfile: s.lockfile }));
  const bases = new Map((only === undefined ? base : base.filter((s) => s.name === only)).map((s) => [s.name, s]));
  const planned: PlannedServer<T>[] = heads.map((s) => {
    const was = bases.get(s.name);
    if (!was) return { name: s.name, head: s, change: 'added', note: `${s.name} is not in the base's config: a new server, so every entry counts as new.` };
    if (was.lockfile === s.lockfile) return { name: s.name, head: s, baseLockfile: was.lockfile };
    return {
      name: s.name,
      head: s,
      baseLockfile: was.lockfile,
      change: 'moved',
      note: `${s.name} now keeps its lockfile at ${s.lockfile}; the base's config puts it at ${was.lockfile}, so that is the baseline this review compares with.`,
    };
  });
  const kept = new Set(heads.map((s) => s.name));
  for (const [name, was] of bases) {
    if (kept.has(name)) continue;
    planned.push({
      name,
      baseLockfile: was.lockfile,
      change: 'removed',
      note: `The config no longer lists ${name}: every entry of its lockfile at the base (${was.lockfile}) counts as removed.`,
    });
  }
  return planned;
}
