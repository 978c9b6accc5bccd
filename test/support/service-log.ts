/** One line of the service's JSON log (pino), the fields the tests read. */
export interface ServiceLogLine {
  readonly msg?: string;
  /** ISO 8601, as the service's logger writes it. */
  readonly time?: string;
  readonly gcMs?: number;
}

/** The complete JSON lines of what the service printed (a ServerProcess's log()); a line still being written is left out. */
export const serviceLogLines = (text: string): ServiceLogLine[] =>
  text
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as ServiceLogLine);

/** The line src/app/quiet-gc.ts logs (at debug) for each quiet-time collection. */
export const isQuietCollection = (line: ServiceLogLine): boolean =>
  line.msg?.startsWith('full GC once the bridge went quiet') === true;
