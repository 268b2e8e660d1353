/** Where a command writes: results to `out` (stdout), progress and diagnostics to `err` (stderr). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** stderr is a terminal: a progress line is redrawn in place; otherwise it is not shown at all. */
  interactive: boolean;
  env: NodeJS.ProcessEnv;
  /** Ends long-running commands (listen) on Ctrl-C. */
  signal?: AbortSignal;
}

export const processIo = (signal?: AbortSignal): CliIo => ({
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  interactive: Boolean(process.stderr.isTTY),
  env: process.env,
  signal,
});

/** One line of progress, redrawn in place on a terminal (`Paying ops_… with success@oasis`). */
export function progress(io: CliIo): { step(text: string): void; done(): void } {
  let shown = false;
  return {
    step(text) {
      if (!io.interactive) return;
      process.stderr.write(`\r\x1b[2K… ${text}`);
      shown = true;
    },
    done() {
      if (shown) process.stderr.write('\r\x1b[2K');
      shown = false;
    },
  };
}

/** A record for people (key: value lines) or, with --json, one JSON document per line. */
export function print(io: CliIo, json: boolean, value: unknown, human: () => string): void {
  io.out(json ? JSON.stringify(value) : human());
}

/** A table of rows for people: columns padded to their widest cell. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
