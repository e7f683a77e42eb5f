/**
 * The pin guard (`proxy --lockfile`): holds a third-party server to the contracts a person
 * reviewed and pinned. Each complete listing the session sees (the proxy's own at start and
 * after `notifications/tools/list_changed`, the client's `tools/list`, `prompts/list`,
 * `resources/list`, `resources/templates/list`) is normalized and diffed against the pin with
 * the engine's keyword rules (`diffContractsSync`: the same rules and lint as `check`, without
 * the worker threads of the semantic cross-check), and each live entry gets a verdict:
 *
 * - `breaking`: a BREAKING change (a rename included), or a pinned entry gone;
 * - `poisoning`: changed text that gained a poisoning cue (the lint's flagged text);
 * - `risky`: any other RISKY change;
 * - `unreviewed`: an entry the pin does not have.
 *
 * SAFE and COSMETIC changes pass. Each class has its action (`DriftPolicy`): `block` (listed,
 * but a call, `prompts/get` or `resources/read` is answered with what changed and how to
 * re-pin), `hide` (left out of its listing, and refused the same way if called by name), or
 * `warn` (a line on stderr, nothing else). An entry in several classes gets the strictest.
 *
 * The relay asks three things, synchronously: `judge` a complete listing, `filter` a listing
 * page it forwards, and the `refusal` of a call. Everything else (the pin file, the policy, the
 * lines already logged) is shared by the sessions of one proxy (`PinSettings`).
 */
import { ENTRY_KEY, ENTRY_KINDS, ENTRY_NOUN, emptyContracts, isJsonObject, type Contracts, type ContractEntry, type EntryKind, type JsonObject, type RawCapture } from '../contract/model.js';
import { normalizeCapture } from '../contract/normalize.js';
import { diffContractsSync } from '../diff/index.js';
import { type DriftAction, type DriftClass, type DriftPolicy } from '../policy/drift.js';
import { entryRenameOf, flagsText, renderContractDeltas, type Delta, type EntryReport } from '../protocol/index.js';
import { toolError } from '../runtime/protocol.js';

/**
 * What the relay holds of a pin: a drift guard for each session, all holding the server to the
 * same pin. The relay knows the guard by this alone, so a proxy without a pin loads none of this
 * module (the normalizer and the diff engine it judges drift with).
 */
export interface Pin {
  guard(): DriftGuard;
}

/** What the sessions of one proxy share. */
export interface PinSettings {
  /** The server's name in the pin file. */
  readonly server: string;
  /** The pin file, as the user named it (for messages). */
  readonly file: string;
  readonly contracts: Contracts;
  readonly policy: DriftPolicy;
  /** How to accept a reviewed change: the command that pins the server again. */
  readonly repin: string;
  /** Drift lines already written, so a proxy serving many sessions says each once. */
  readonly logged: Set<string>;
  /** A line for the operator (stderr). */
  readonly warn: (message: string) => void;
}

/** An entry's verdict: the classes it falls in, the action they call for, and its deltas. */
interface Verdict {
  readonly classes: readonly DriftClass[];
  readonly action: DriftAction | 'pass';
  readonly deltas: readonly Delta[];
  /** An entry the pin has and the server no longer lists; `renamedTo` when it was renamed. */
  readonly gone?: { readonly renamedTo?: string };
}

/** A refused call's answer: `xml` for a tool result (what a model reads), `plain` for a JSON-RPC error (prompts, resources). */
export interface Refusal {
  readonly xml: string;
  readonly plain: string;
}

const PASS: Verdict = { classes: [], action: 'pass', deltas: [] };
const STRICTNESS: Record<DriftAction | 'pass', number> = { pass: 0, warn: 1, block: 2, hide: 3 };
/** Logged lines remembered; past it a long-running proxy forgets (and may repeat) the oldest. */
const MAX_LOGGED = 10_000;
/** Deltas shown in a refusal; the rest are counted. */
const MAX_DELTAS_SHOWN = 8;

/** The result key of each kind's listing. */
const RESULT_KEY: Record<EntryKind, string> = { tools: 'tools', prompts: 'prompts', resources: 'resources', resourceTemplates: 'resourceTemplates' };

export class DriftGuard {
  private readonly verdicts = new Map<EntryKind, Map<string, Verdict>>();
  /** Each judged entry's JSON, so a page of a listing in progress reuses the verdict of an entry unchanged since. */
  private readonly judgedText = new Map<EntryKind, Map<string, string>>();

  /** Whether the client declares every capability the pin's capture did (servers hide some tools from clients without them). */
  private declaresAsPinned = true;

  constructor(private readonly pin: PinSettings) {}

  /**
   * The client's declared capabilities (`initialize`, or the stateless revision's `_meta`). A
   * client that declares fewer than the pin's capture did is offered fewer tools by some servers:
   * a pinned tool the server does not list to it is then not counted as gone.
   */
  noteClient(capabilities: unknown): void {
    const declared = isJsonObject(capabilities) ? capabilities : {};
    const missing = (this.pin.contracts.clientCapabilities ?? []).filter((name) => declared[name] === undefined);
    this.declaresAsPinned = missing.length === 0;
    if (missing.length === 0) return;
    const line = `pin ${JSON.stringify(this.pin.server)}: the client does not declare ${missing.join(', ')}, which the pin's capture did: a pinned entry the server does not list to it is not counted as gone (calls to it go to the server).`;
    if (this.pin.logged.has(line)) return;
    this.pin.logged.add(line);
    this.pin.warn(line);
  }

  /** A complete listing of `kind`, as the server sent it: judged against the pin, drift logged. */
  judge(kind: EntryKind, items: Iterable<JsonObject>): void {
    const list = [...items];
    const { verdicts, texts } = this.verdictsOf(kind, list, true);
    this.verdicts.set(kind, verdicts);
    this.judgedText.set(kind, texts);
    this.log(kind, verdicts);
  }

  /** The listing of `kind` is stale (its list_changed): names are judged by the pin alone until the next one. */
  forget(kind: EntryKind): void {
    this.verdicts.delete(kind);
    this.judgedText.delete(kind);
  }

  /** The result of a listing answer with its hidden entries left out, or undefined to forward it as it is. */
  filteredListing(kind: EntryKind, result: JsonObject): JsonObject | undefined {
    const kept = this.filter(kind, result[RESULT_KEY[kind]]);
    return kept === undefined ? undefined : { ...result, [RESULT_KEY[kind]]: kept as JsonObject[] };
  }

  /**
   * A listing page on its way to the client: the items to forward without the hidden ones, or
   * undefined when it goes as it is. Items not judged yet (an earlier page of a listing still
   * being followed) are judged on their own.
   */
  filter(kind: EntryKind, items: unknown): unknown[] | undefined {
    if (!Array.isArray(items)) return undefined;
    const known = this.verdicts.get(kind);
    const texts = this.judgedText.get(kind);
    const unjudged = items.filter((item): item is JsonObject => isJsonObject(item) && (texts?.get(keyOf(kind, item) ?? '') !== JSON.stringify(item)));
    const fresh = unjudged.length > 0 ? this.verdictsOf(kind, unjudged, false).verdicts : undefined;
    const kept = items.filter((item) => {
      const key = isJsonObject(item) ? keyOf(kind, item) : undefined;
      if (key === undefined) return true;
      return (fresh?.get(key) ?? known?.get(key) ?? PASS).action !== 'hide';
    });
    return kept.length === items.length ? undefined : kept;
  }

  /**
   * Why a call to entry `key` of `kind` is refused (the text the client gets), or undefined to
   * let it through. `listed`: whether the proxy knows the current listing of that kind; a tool
   * call without it is refused (the pin cannot be checked), a prompt or resource is judged by
   * the pin alone (known and unchanged as far as can be told, or unreviewed).
   */
  refusal(kind: EntryKind, key: string): Refusal | undefined {
    const verdicts = this.verdicts.get(kind);
    if (verdicts === undefined) {
      if (kind === 'tools') return this.unchecked();
      // A resource read may name an instance of a template: unknown without a listing, it goes out.
      if (kind === 'resources' || Object.hasOwn(this.pin.contracts[kind], key)) return undefined;
      return this.refusalFor(kind, key, { classes: ['unreviewed'], action: this.pin.policy.unreviewed, deltas: [] });
    }
    const verdict = verdicts.get(key) ?? (Object.hasOwn(this.pin.contracts[kind], key) ? PASS : undefined);
    // A name neither listed nor pinned: the server's own "unknown" answer says it best.
    if (verdict === undefined) return undefined;
    return this.refusalFor(kind, key, verdict);
  }

  private refusalFor(kind: EntryKind, key: string, verdict: Verdict): Refusal | undefined {
    if (verdict.action !== 'block' && verdict.action !== 'hide') return undefined;
    const noun = ENTRY_NOUN[kind];
    const rename = verdict.deltas.map(entryRenameOf).find((r) => r !== undefined);
    let what: string;
    if (verdict.gone !== undefined) {
      what = verdict.gone.renamedTo !== undefined ? `the server renamed it to "${verdict.gone.renamedTo}", and the rename was not reviewed` : 'the server no longer has it';
    } else if (rename !== undefined) {
      what = `it is the pinned "${rename.from}" under a new name, and the rename was not reviewed`;
    } else if (verdict.classes.length === 1 && verdict.classes[0] === 'unreviewed') {
      what = `it is not in the pin: the server added it after "${this.pin.server}" was pinned, and nobody reviewed it`;
    } else {
      what = `it changed since "${this.pin.server}" was pinned, and the change was not reviewed (${verdict.classes.map(classWords).join('; ')})`;
    }
    const message = `The ${noun} "${key}" is held back by the pin in ${this.pin.file}: ${what}.`;
    const repin = `Once a person has reviewed the change, they accept it by pinning the server again: ${this.pin.repin}`;
    const error = toolError('PINNED_CONTRACT_DRIFT', { message, suggestion: `Do not call it again in this session; tell the user it is held back. ${repin}` }).content[0].text;
    const plain = `${message} ${repin}`;
    if (verdict.deltas.length === 0) return { xml: error, plain };
    const shown = verdict.deltas.slice(0, MAX_DELTAS_SHOWN);
    const more = verdict.deltas.length - shown.length;
    const deltas = renderContractDeltas(shown, {
      maxValueLength: 300,
      readers: 'consumers',
      ...(more > 0 ? { more: { count: more, text: `${more} more change${more === 1 ? '' : 's'}; the review of the change lists them all.` } } : {}),
    });
    return { xml: error.replace(/<\/tool_error>$/, `${deltas}\n</tool_error>`), plain };
  }

  private unchecked(): Refusal {
    const message = `The proxy could not list the server's tools, so it cannot check them against the pin in ${this.pin.file}: no call goes out unchecked.`;
    return { xml: toolError('PINNED_CONTRACT_DRIFT', { message, suggestion: 'Tell the user the server did not list its tools; retrying later may work.' }).content[0].text, plain: message };
  }

  /** The verdicts of `items` (all of `kind` when `complete`: renames and gone entries are found then). */
  private verdictsOf(kind: EntryKind, items: readonly JsonObject[], complete: boolean): { verdicts: Map<string, Verdict>; texts: Map<string, string> } {
    const texts = new Map<string, string>();
    for (const item of items) {
      const key = keyOf(kind, item);
      if (key !== undefined && !texts.has(key)) texts.set(key, JSON.stringify(item));
    }
    const raw: RawCapture = { server: this.pin.contracts.server, protocolVersion: '', era: 'legacy', tools: [], prompts: [], resources: [], resourceTemplates: [] };
    raw[kind] = [...items];
    const live = normalizeCapture(raw).contracts;
    const pinned = emptyContracts(this.pin.contracts.server);
    const all = this.pin.contracts[kind];
    // A page alone says nothing about the entries it does not show: only theirs are compared.
    if (complete) pinned[kind] = all;
    else for (const key of Object.keys(live[kind])) if (Object.hasOwn(all, key)) pinned[kind][key] = all[key] as ContractEntry;
    // The other kinds are the pin's own on both sides: no drift is read into them.
    for (const other of ENTRY_KINDS) if (other !== kind) live[other] = pinned[other];
    const report = diffContractsSync(pinned, live, { detectRenames: complete });
    const verdicts = new Map<string, Verdict>();
    for (const key of texts.keys()) verdicts.set(key, this.verdictOf(kind, key, report[kind][key]));
    if (complete) {
      // Pinned entries the server no longer lists (removed, or renamed away): refused by name
      // (unless the client declares less than the capture did: the server may hide them from it).
      const renamedTo = new Map<string, string>();
      for (const [key, entry] of Object.entries(report[kind])) {
        for (const delta of entry.deltas) {
          const rename = entryRenameOf(delta);
          if (rename !== undefined) renamedTo.set(rename.from, key);
        }
      }
      for (const key of Object.keys(all)) {
        if (texts.has(key)) continue;
        const renamed = renamedTo.get(key);
        if (renamed === undefined && !this.declaresAsPinned) continue;
        const deltas = renamed === undefined ? (report[kind][key]?.deltas ?? []) : (report[kind][renamed]?.deltas.filter(isRename) ?? []);
        verdicts.set(key, { classes: ['breaking'], action: this.pin.policy.breaking, deltas, gone: renamed !== undefined ? { renamedTo: renamed } : {} });
      }
    }
    return { verdicts, texts };
  }

  private verdictOf(kind: EntryKind, key: string, entry: EntryReport | undefined): Verdict {
    const pinned = Object.hasOwn(this.pin.contracts[kind], key);
    const classes: DriftClass[] = [];
    const deltas = entry?.deltas ?? [];
    if (deltas.some((d) => d.severity === 'BREAKING')) classes.push('breaking');
    if (deltas.some(flagsText)) classes.push('poisoning');
    if (deltas.some((d) => d.severity === 'RISKY' && !flagsText(d))) classes.push('risky');
    if (!pinned) classes.push('unreviewed');
    if (classes.length === 0) return deltas.length === 0 ? PASS : { classes, action: 'pass', deltas };
    const action = classes.map((c) => this.pin.policy[c]).reduce((a, b) => (STRICTNESS[b] > STRICTNESS[a] ? b : a));
    return { classes, action, deltas };
  }

  /** One line per drifting entry of `kind`, each written once per proxy. */
  private log(kind: EntryKind, verdicts: ReadonlyMap<string, Verdict>): void {
    const noun = ENTRY_NOUN[kind];
    for (const [key, verdict] of [...verdicts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (verdict.classes.length === 0) continue;
      const done =
        verdict.gone !== undefined
          ? verdict.action === 'warn'
            ? 'is gone (calls to it go to the server)'
            : 'is gone (calls to it are answered by the proxy)'
          : { block: 'blocked', hide: 'hidden', warn: 'let through' }[verdict.action as DriftAction];
      const changes = verdict.deltas.length === 0 ? '' : `: ${summarize(verdict.deltas)}`;
      const line = `pin ${JSON.stringify(this.pin.server)}: ${noun} ${JSON.stringify(key)} ${done} (${verdict.classes.map(classWords).join('; ')})${changes}`;
      if (this.pin.logged.has(line)) continue;
      if (this.pin.logged.size >= MAX_LOGGED) this.pin.logged.delete(this.pin.logged.values().next().value as string);
      this.pin.logged.add(line);
      this.pin.warn(line);
    }
  }
}

/** The key of a listed item (`name`, `uri`, `uriTemplate`). */
function keyOf(kind: EntryKind, item: JsonObject): string | undefined {
  const key = item[ENTRY_KEY[kind]];
  return typeof key === 'string' && key !== '' ? key : undefined;
}

function isRename(delta: Delta): boolean {
  return entryRenameOf(delta) !== undefined;
}

function classWords(c: DriftClass): string {
  return { breaking: 'a breaking change', poisoning: 'new text that looks like tool poisoning', risky: 'a risky change', unreviewed: 'not in the pin' }[c];
}

/** The first few deltas' sentences, for a log line; flagged text is not repeated. */
function summarize(deltas: readonly Delta[]): string {
  const shown = deltas.slice(0, 3).map((d) => `${d.severity} ${d.message}`);
  const more = deltas.length > 3 ? ` (and ${deltas.length - 3} more)` : '';
  return `${shown.join(' ')}${more}`.replace(/\s+/g, ' ');
}

