/** One line of the soak's log, stamped with the time of day. */
export const log = (line: string) => process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
