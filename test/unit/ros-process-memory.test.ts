import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryFields, memoryOf, parseStatusMemory } from '../ros/process-memory.js';

const MiB = 2 ** 20;

describe("a process's resident memory and its parts (the footprint line of npm run test:ros)", () => {
  it("reads this process's own /proc/self/status: the parts add up to VmRSS, and the node binary is file-backed", () => {
    const memory = memoryOf('self');
    assert.equal(memory.anon + memory.file + memory.shmem, memory.rss);
    // The node binary alone maps tens of MiB of file pages; a running V8 heap is anonymous.
    assert.ok(memory.file > 10 * MiB, `file ${String(memory.file)}`);
    assert.ok(memory.anon > 5 * MiB, `anon ${String(memory.anon)}`);
    // Node.js's own figure (from /proc/self/stat) is the same resident set, read a moment apart.
    assert.ok(Math.abs(process.memoryUsage().rss - memory.rss) < 8 * MiB);
  });

  it('counts memory the process writes as anonymous, not file-backed', () => {
    const before = memoryOf('self');
    const block = Buffer.alloc(64 * MiB, 1);
    const during = memoryOf('self');
    assert.equal(block.at(-1), 1);
    assert.ok(during.anon - before.anon > 56 * MiB, `anon +${String(during.anon - before.anon)}`);
    assert.ok(Math.abs(during.file - before.file) < 8 * MiB, `file ${String(during.file - before.file)}`);
  });

  it('reads the fields from a status text, in kB, and says which one is missing', () => {
    const status = [
      'Name:\tnode',
      'VmRSS:\t   93596 kB',
      'RssAnon:\t   41164 kB',
      'RssFile:\t   52432 kB',
      'RssShmem:\t       0 kB',
      '',
    ].join('\n');
    assert.deepEqual(parseStatusMemory(status), {
      rss: 93_596 * 1024,
      anon: 41_164 * 1024,
      file: 52_432 * 1024,
      shmem: 0,
    });
    assert.throws(() => parseStatusMemory(status.replace(/^RssFile.*$/m, '')), /no RssFile/);
  });

  it("writes one reading as the footprint line's fields, shared memory only when there is some", () => {
    const memory = { rss: 91.4 * MiB, anon: 40.2 * MiB, file: 51.2 * MiB, shmem: 0 };
    assert.equal(memoryFields('idle', memory), 'rss_idle_mib=91.4 anon_idle_mib=40.2 file_idle_mib=51.2');
    assert.equal(
      memoryFields('peak', { ...memory, shmem: 2 * MiB }),
      'rss_peak_mib=91.4 anon_peak_mib=40.2 file_peak_mib=51.2 shmem_peak_mib=2.0',
    );
  });
});
