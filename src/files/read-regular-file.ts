import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Reads a small file the service keeps without trusting what is there: opened without blocking (a FIFO would
 * hang start-up before the service listens), refused unless it is a regular file (a link to /dev/zero would
 * read without end), and read no further than `maxBytes` (a larger file is refused, not cut). Undefined when
 * there is no file.
 */
export const readRegularFile = async (file: string, maxBytes: number): Promise<string | undefined> => {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a regular file');
    // One byte past the limit is read, to tell an oversized file from a full one.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes) throw new Error(`larger than ${maxBytes} bytes`);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    await handle.close();
  }
};
