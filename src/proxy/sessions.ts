/**
 * The sessions `--listen` serves, within two bounds: at most `maxSessions` at once, and none
 * idle for longer than `idleMs`. Clients open sessions and walk away without a DELETE (the
 * protocol cannot make them say goodbye); without these bounds they would hold every slot, and
 * a server process each, until the proxy stops.
 *
 * A session is idle while none of its requests awaits an answer; an open GET stream alone is a
 * client listening, not work under way. When the table is full, the session idle the longest
 * makes room for the new one; an idle session past `idleMs` is ended by `sweep`. Either way it
 * leaves the table at once, so its id is answered 404 from then on, the specification's signal
 * for the client to start a new session. Only when every session has a request in flight is a
 * new one refused. Time comes from `now`, so the rules are tested without waiting.
 */

export interface SessionLimits {
  /** Sessions served at once (each one a server process, or an upstream session with `--url`). */
  readonly maxSessions: number;
  /** How long a session may stay idle before it is ended. */
  readonly idleMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxSessions: 32, idleMs: 30 * 60_000 };

export interface TableSession {
  readonly id: string;
  /** Since when no request of the session has awaited an answer; undefined while one does. */
  idleSince(): number | undefined;
  /** Ends the session (its server, its streams). Never throws. */
  close(): Promise<void>;
}

export class SessionTable<S extends TableSession> {
  private readonly sessions = new Map<string, S>();

  constructor(
    readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): S | undefined {
    return this.sessions.get(id);
  }

  /**
   * Makes room for one more session: true when there is room, once the session idle the
   * longest has been ended if the table was full; false when every session is busy.
   */
  makeRoom(): boolean {
    if (this.sessions.size < this.limits.maxSessions) return true;
    let oldest: S | undefined;
    let oldestSince = Infinity;
    for (const session of this.sessions.values()) {
      const since = session.idleSince();
      if (since !== undefined && since < oldestSince) {
        oldest = session;
        oldestSince = since;
      }
    }
    if (oldest === undefined) return false;
    this.end(oldest);
    return true;
  }

  add(session: S): void {
    this.sessions.set(session.id, session);
  }

  /** Forgets a session that ended on its own (its server exited, a DELETE). */
  remove(session: S): void {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
  }

  /** Ends the sessions idle for longer than `idleMs`. */
  sweep(): void {
    const before = this.now() - this.limits.idleMs;
    for (const session of [...this.sessions.values()]) {
      const since = session.idleSince();
      if (since !== undefined && since < before) this.end(session);
    }
  }

  /** Ends every session (the proxy stops). */
  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((session) => session.close()));
  }

  private end(session: S): void {
    this.sessions.delete(session.id);
    void session.close();
  }
}
