/** The benchmark's progress lines: on stderr, so the report on stdout stays clean. */
export const log = (line: string): void => {
  process.stderr.write(`bench: ${line}\n`);
};
