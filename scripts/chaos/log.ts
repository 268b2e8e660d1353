/** One line of the run's log, stamped with the time of day. */
export const log = (line: string) =>
  process.stdout.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
