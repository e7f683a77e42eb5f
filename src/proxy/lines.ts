/**
 * Newline-delimited framing of the MCP stdio transport, on raw bytes. Each complete line is
 * handed over with its terminator, byte for byte, as soon as its last chunk arrives: the relay
 * adds no delay and never re-encodes what it forwards. A line longer than `maxLineBytes` is not
 * held: its bytes go to `onOverflow` as they arrive (to be relayed unread), up to and including
 * its newline, so a peer that never ends a line cannot grow our memory.
 */
export interface LineReaderOptions {
  maxLineBytes: number;
  onLine: (line: Buffer) => void;
  onOverflow: (bytes: Buffer) => void;
}

const NEWLINE = 0x0a;

export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private overflowing = false;

  constructor(private readonly options: LineReaderOptions) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      const piece = chunk.subarray(start, end);
      start = end;
      if (this.overflowing) {
        this.options.onOverflow(piece);
        this.overflowing = newline === -1;
      } else if (this.size + piece.length > this.options.maxLineBytes) {
        for (const part of this.parts) this.options.onOverflow(part);
        this.options.onOverflow(piece);
        this.parts = [];
        this.size = 0;
        this.overflowing = newline === -1;
      } else if (newline === -1) {
        this.parts.push(piece);
        this.size += piece.length;
      } else {
        const line = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
        this.parts = [];
        this.size = 0;
        this.options.onLine(line);
      }
    }
  }

  /** The bytes of a last line that never got its newline (the stream ended), if any. */
  rest(): Buffer | undefined {
    if (this.size === 0) return undefined;
    const rest = Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    return rest;
  }
}
