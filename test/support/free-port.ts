import { createServer } from 'node:net';

/**
 * A loopback TCP port free now: the kernel picks one for a probe server, which is closed at once. For a
 * process that must be told its port up front (nginx, rmw_zenohd, a service restarted on the same port);
 * whoever binds it can still lose a race with another process, which the callers' own retries cover.
 */
export const freeLoopbackPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('no port'));
        else resolve(address.port);
      });
    });
  });
