/** Command line of a peer server: `--port N --body <base64 of the GET body>`. */
export interface PeerArgs {
  readonly port: number;
  /** The exact body the bridge answers to `GET /tour/welcome`, so every server sends the same bytes. */
  readonly body: Buffer;
}

export const parsePeerArgs = (argv: readonly string[]): PeerArgs => {
  const value = (flag: string): string => {
    const index = argv.indexOf(flag);
    const found = index === -1 ? undefined : argv[index + 1];
    if (found === undefined) throw new Error(`missing ${flag}`);
    return found;
  };
  const port = Number(value('--port'));
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) throw new Error('bad --port');
  return { port, body: Buffer.from(value('--body'), 'base64') };
};

/**
 * The text frame a peer sends before echoing a binary frame: the same shape and about the size of the
 * bridge's `audio` metadata, so "echo" costs what our answer pair costs on the wire.
 */
export const echoMeta = (bytes: number): string =>
  JSON.stringify({ type: 'audio', emotion: 'happy', text: `I heard ${bytes} bytes of audio.`, messageId: 0 });

/** Largest frame a peer accepts: well above the biggest frame the benchmark sends (1 MiB). */
export const PEER_MAX_PAYLOAD = 16 * 1024 * 1024;
