import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { OPTION_SPECS } from '../../src/cli/options.js';
import {
  CLOSE_CODES,
  COMMAND_SERVICES,
  ERROR_CODES,
  ServerMessageSchema,
  TURN_OUTCOMES,
} from '../../src/protocol/ws/index.js';
import { markdownTableRows } from '../support/markdown-table.js';
import { EXAMPLE_FRAMES } from '../support/ws-examples.js';
import { routeTable } from '../../src/app/compose.js';
import { PROBLEM_TYPES } from '../../src/transport/http/reply.js';
import { TOUR_LIMITS } from '../../src/protocol/tour-limits.js';
import { echoChat } from '../../src/robot/echo-chat.js';
import { transcriptText } from '../../src/robot/speech/recognition-cost.js';
import { encodeWav } from '../../web/src/wav.js';
import {
  createBridgeMetrics,
  registerBuildInfo,
  registerLiveGauges,
} from '../../src/metrics/bridge-metrics.js';

/** A file of the repository, by its path from the root. */
const repositoryFile = (path: string): string =>
  readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = repositoryFile('README.md');
const operations = repositoryFile('docs/operations.md');
const tableRows = markdownTableRows(readme);

/** Every route the service serves, the simulation's too (its routes only read these parts when called). */
const everyRoute = () =>
  routeTable({
    port: { backend: 'sim', readiness: () => ({ ready: true, detail: '' }) },
    metrics: createBridgeMetrics(),
    uws: { line: 'official', name: 'uws@0', reason: 'a test' },
    microphone: { isEnabled: () => true, kept: false, entries: () => [] },
    sim: { publishPlayAudio: () => undefined, setMicrophone: () => Promise.reject(new Error('unused')) },
    site: undefined,
    access: { token: true, origins: true },
  });

/**
 * The quantity a docs cell starts with, in the command line's units (bytes, milliseconds, a count):
 * "2 MiB (…)" is 2097152, "5 s (504)" 5000, "1,000 (close 1013)" 1000; undefined when it starts with none.
 */
const leadingQuantity = (cell: string): number | undefined => {
  const units: Record<string, number> = { KiB: 1024, MiB: 1024 * 1024, s: 1000 };
  const leading = /^([\d,]+) ?(KiB|MiB|s)?\b/.exec(cell);
  if (leading?.[1] === undefined) return undefined;
  const unit = leading[2] === undefined ? 1 : (units[leading[2]] ?? Number.NaN);
  return Number(leading[1].replaceAll(',', '')) * unit;
};

describe('docs/operations.md, "Options", matches the code', () => {
  it('lists every option with its environment variable and default', () => {
    const options = operations.slice(
      operations.indexOf('\n## Options\n'),
      operations.indexOf('\n## Options in detail'),
    );
    const rows = markdownTableRows(options);
    for (const spec of Object.values(OPTION_SPECS)) {
      const cells = rows.find((row) => row[0] === '`--' + spec.flag + '`');
      assert.ok(cells, `docs/operations.md has no row for --${spec.flag}`);
      assert.equal(cells[1], '`' + spec.env + '`', `row of --${spec.flag} names its variable`);
      assert.equal(cells[2], '`' + spec.defaultValue + '`', `row of --${spec.flag} gives its default`);
    }
  });
});

describe('README matches the code', () => {
  it('lists options only with their environment variable and default, the main ones among them', () => {
    const specs = Object.values(OPTION_SPECS);
    for (const flag of ['host', 'port', 'log_level', 'backend', 'auth_token']) {
      assert.ok(
        tableRows.some((row) => row[0] === `\`--${flag}\``),
        `README has a row for --${flag}`,
      );
    }
    for (const row of tableRows.filter((cells) => /^`--\w+`$/.test(cells[0] ?? ''))) {
      const spec = specs.find((candidate) => row[0] === '`--' + candidate.flag + '`');
      assert.ok(spec, `README names ${row[0]}, which is no option`);
      assert.equal(row[1], '`' + spec.env + '`', `README row of --${spec.flag} names its variable`);
      assert.equal(row[2], '`' + spec.defaultValue + '`', `README row of --${spec.flag} gives its default`);
    }
  });

  it('names, under "Access control", every HTTP path the token guards, and no open one', () => {
    const routes = everyRoute();
    const bullet = /^- HTTP: `Authorization: Bearer <token>` on (.+?);\s+otherwise/ms.exec(readme);
    assert.ok(bullet?.[1] !== undefined, 'README has the HTTP bullet under "Access control"');
    const named = [...bullet[1].matchAll(/`([^`]+)`/g)].map((match) => (match[1] ?? '').replace(/…$/, ''));
    const covers = (pattern: string) => named.some((prefix) => pattern.startsWith(prefix));
    // /ws has a bullet of its own (the upgrade's token), so its plain GET is not listed with the API.
    const guarded = routes.filter((route) => route.access !== 'public' && route.pattern !== '/ws');
    assert.ok(guarded.length > 0);
    for (const route of guarded) assert.ok(covers(route.pattern), `README names ${route.pattern} as guarded`);
    for (const route of routes.filter((each) => each.access === 'public')) {
      assert.ok(!covers(route.pattern), `README names the open ${route.pattern} as guarded`);
    }
    for (const prefix of named) {
      assert.ok(
        guarded.some((route) => route.pattern.startsWith(prefix)),
        `README names ${prefix}, which no guarded route has`,
      );
    }
  });

  it('lists every route in its table of endpoints', () => {
    const listed = tableRows.map((row) => row[0] ?? '').join(' ');
    // The WebSocket and the page assets have their own paragraphs.
    const described = everyRoute().filter(
      (route) => route.pattern !== '/ws' && route.pattern !== '/assets/*',
    );
    for (const route of described) {
      const path = route.pattern.replace(/:([a-z_]+)/g, '{$1}');
      assert.ok(listed.includes(`\`${route.method} ${path}\``), `README lists ${route.method} ${path}`);
    }
  });

  it('keeps every line within 200 characters, so it reads without scrolling sideways', () => {
    const wide = readme
      .split('\n')
      .flatMap((line, index) => (line.length > 200 ? [`line ${index + 1}: ${line.length}`] : []));
    assert.deepEqual(wide, [], 'README lines wider than 200 characters');
  });

  it('gives the two fresh-machine commands on its first screen', () => {
    const firstScreen = readme.split('\n').slice(0, 25).join('\n');
    assert.match(firstScreen, /npm ci && npm run demo/);
    assert.match(firstScreen, /npm ci && npm test/);
  });
});

describe('the kiosk docs quote the simulation as the kiosk shows it', () => {
  const kiosk = repositoryFile('docs/kiosk.md');
  /** The visitor's words quoted as the kiosk shows them: "You: " (kiosk-page.ts) and the transcript. */
  const quotedWords = (text: string): string[] =>
    [...text.matchAll(/"You: (\[[^\]]*\])"/g)].map((match) => match[1] ?? '');
  /** The seconds a stand-in transcript states ("[1.6 s of speech]"); NaN for any other text. */
  const statedSeconds = (words: string): number => Number(/^\[(\d+\.\d) s of speech\]$/.exec(words)?.[1]);

  it('quotes the recogniser stand-in’s transcript in its own words', () => {
    for (const [path, text] of [
      ['README.md', readme],
      ['docs/kiosk.md', kiosk],
    ] as const) {
      const quoted = quotedWords(text);
      assert.ok(quoted.length > 0, `${path} quotes the visitor's words`);
      for (const words of quoted) {
        assert.equal(words, transcriptText(statedSeconds(words)), `${path} quotes "You: ${words}"`);
      }
    }
  });

  it('pairs a quoted transcript with the answer the simulation gives to that much speech', () => {
    const paired = kiosk.split(/\n\s*\n|\n- /).flatMap((block) => {
      const words = quotedWords(block)[0];
      const answer = /"(You spoke for [^".]*\.)/.exec(block)?.[1];
      return words === undefined || answer === undefined ? [] : [{ words, answer }];
    });
    assert.ok(paired.length > 0, 'docs/kiosk.md quotes a transcript and its answer together');
    for (const { words, answer } of paired) {
      const samples = new Int16Array(Math.round(statedSeconds(words) * 16_000));
      const said = echoChat({ audio: new Uint8Array(encodeWav(samples)) }).text;
      assert.ok(said.startsWith(answer), `beside "You: ${words}" the robot says "${said}", not "${answer}"`);
    }
  });
});

describe('docs/protocol.md matches src/protocol/ws/', () => {
  const protocol = repositoryFile('docs/protocol.md');
  const rows = markdownTableRows(protocol);

  it('names the one module that defines the protocol, and no other', () => {
    assert.match(protocol, /defined in one module, `src\/protocol\/ws\/` \(its `index\.ts`\)/);
    assert.ok(existsSync(new URL('../../src/protocol/ws/index.ts', import.meta.url)));
    const otherModules = protocol.match(/src\/protocol\/ws[-_][a-z-]+\.ts/g) ?? [];
    assert.deepEqual(otherModules, []);
  });

  it('lists every message the service sends, and no other', () => {
    const section = protocol.slice(
      protocol.indexOf('### Server → kiosk'),
      protocol.indexOf('### Kiosk → server'),
    );
    // The first row is the table's header.
    const documented = markdownTableRows(section)
      .slice(1)
      .flatMap((row) => (/^`[a-z_]+`$/.test(row[0] ?? '') ? [row[0]!.slice(1, -1)] : []));
    const types = ServerMessageSchema.options.map((option) => option.entries.type.literal);
    assert.deepEqual(documented.sort(), [...types].sort());
  });

  it('lists every command a client sends', () => {
    const section = protocol.slice(protocol.indexOf('### Kiosk → server'), protocol.indexOf('### Examples'));
    for (const service of COMMAND_SERVICES) {
      assert.ok(section.includes(`text \`{"service":"${service}"`), `the ${service} command is documented`);
    }
  });

  const isOutcome = (name: string): boolean => Object.hasOwn(TURN_OUTCOMES, name);

  it('lists every error code, and no other', () => {
    const documented = rows.flatMap((row) =>
      /^`[a-z_]+`$/.test(row[0] ?? '') && row.length === 2 && !isOutcome(row[0]!.slice(1, -1))
        ? [row[0]!.slice(1, -1)]
        : [],
    );
    assert.deepEqual(documented.sort(), Object.keys(ERROR_CODES).sort());
  });

  it('lists every turn outcome with its meaning, as the protocol module words it', () => {
    const documented = rows.filter((row) => row.length === 2 && isOutcome((row[0] ?? '').slice(1, -1)));
    assert.deepEqual(
      documented.map((row) => [row[0]!.slice(1, -1), row[1]]),
      Object.entries(TURN_OUTCOMES),
    );
  });

  it('lists every close code with its exact reason', () => {
    for (const close of Object.values(CLOSE_CODES)) {
      // 1008 ends a session for two reasons: each has its row.
      const row = rows.find(
        (cells) => cells[0] === String(close.code) && cells[1] === '`' + close.reason + '`',
      );
      assert.ok(row, `close code ${close.code} \`${close.reason}\` is documented`);
    }
  });

  it('gives each limit flag the default the command line has', () => {
    const limitRows = rows.filter((row) => row.length === 3 && /^`--[a-z_]+`$/.test(row[0] ?? ''));
    assert.ok(limitRows.length >= 8, `${limitRows.length} limit rows`);
    for (const [flagCell = '', defaultCell = ''] of limitRows) {
      const flag = flagCell.slice(3, -1);
      const spec = Object.values(OPTION_SPECS).find((each) => each.flag === flag);
      assert.ok(spec, `--${flag} is a flag of the command line`);
      // "2 MiB (65 s of …)", "64 KiB", "60000 (a whole turn)", "4 waiting calls per session".
      const value = leadingQuantity(defaultCell);
      assert.ok(value !== undefined, `--${flag}: "${defaultCell}" starts with its value`);
      assert.equal(value, Number(spec.defaultValue), `--${flag}: docs/protocol.md says ${defaultCell}`);
    }
  });

  it('shows every example frame', () => {
    for (const example of EXAMPLE_FRAMES) {
      assert.ok(protocol.includes(example.frame), `example ${example.frame} is in the doc`);
    }
  });
});

describe('docs/api.md matches the problem types', () => {
  it('names every status a problem type answers with', () => {
    const api = repositoryFile('docs/api.md');
    const statuses = /Statuses: (.+?)\n\n/s.exec(api)?.[1];
    assert.ok(statuses !== undefined, 'docs/api.md has its "Statuses:" paragraph');
    const named = new Set(statuses.match(/\b[1-5]\d\d\b/g));
    for (const [type, { status }] of Object.entries(PROBLEM_TYPES)) {
      assert.ok(named.has(String(status)), `docs/api.md names ${status} (${type})`);
    }
  });
});

describe('docs/operations.md matches the command line', () => {
  it('gives each limit with a flag that flag’s environment variable and default', () => {
    const rows = markdownTableRows(operations).filter((row) =>
      /^`--[a-z_]+` \/ `[A-Z_]+`$/.test(row[2] ?? ''),
    );
    assert.ok(rows.length >= 12, `${rows.length} limits with a flag`);
    for (const [limit = '', defaultCell = '', flagCell = ''] of rows) {
      const [flag = '', env = ''] = flagCell.split(' / ').map((cell) => cell.slice(1, -1));
      const spec = Object.values(OPTION_SPECS).find((each) => `--${each.flag}` === flag);
      assert.ok(spec, `${limit}: ${flag} is a flag of the command line`);
      assert.equal(env, spec.env, `${limit}: ${flag}'s variable`);
      // "1 MiB (413)", "5 s (504)", "1,000 (close 1013)", "10, the services QoS depth; …".
      const value = leadingQuantity(defaultCell);
      assert.ok(value !== undefined, `${limit}: "${defaultCell}" starts with its value`);
      assert.equal(value, Number(spec.defaultValue), `${limit}: docs/operations.md says ${defaultCell}`);
    }
  });
});

describe('docs/operations.md matches the tour limits', () => {
  it('gives the limits of a tour as TOUR_LIMITS has them', () => {
    const rows = markdownTableRows(operations);
    const valueOf = (limit: string): string => {
      const row = rows.find((cells) => cells[0] === limit);
      assert.ok(row?.[1] !== undefined, `docs/operations.md has the row "${limit}"`);
      return row[1];
    };
    const count = (text: string) => Number(text.replaceAll(',', ''));
    assert.match(valueOf('Tour name'), new RegExp(`^1–${TOUR_LIMITS.nameMaxChars} characters`));
    const lengths = /^([\d,]+) \/ ([\d,]+) \/ ([\d,]+) \/ ([\d,]+) characters$/.exec(
      valueOf('Map name / description / destination / dialogue'),
    );
    assert.deepEqual(lengths?.slice(1).map(count), [
      TOUR_LIMITS.mapNameMaxChars,
      TOUR_LIMITS.descriptionMaxChars,
      TOUR_LIMITS.destinationMaxChars,
      TOUR_LIMITS.dialogueMaxChars,
    ]);
    assert.equal(count(valueOf('Steps per tour')), TOUR_LIMITS.maxSteps);
  });
});

describe('docs/operations.md matches the metrics', () => {
  it('its table names every metric the bridge exports, and no other', async () => {
    const documented = markdownTableRows(operations).flatMap((row) =>
      [...(row[0] ?? '').matchAll(/`(tour_bridge_[a-z_]+\*?)`/g)].map((match) => match[1] ?? ''),
    );
    const families = documented.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1));
    const metrics = createBridgeMetrics();
    registerLiveGauges(metrics, () => ({
      liveSessions: 0,
      openSubscriptions: 0,
      inFlightRosCalls: 0,
      queuedAudioBytes: 0,
    }));
    registerBuildInfo(metrics, { uws: 'uws@0', line: 'official', reason: 'a test' });
    const exported = (await metrics.registry().getMetricsAsJSON()).map((metric) => metric.name);
    for (const name of exported) {
      const named = documented.includes(name) || families.some((family) => name.startsWith(family));
      assert.ok(named, `docs/operations.md names ${name}`);
    }
    for (const name of documented.filter((each) => !each.endsWith('*'))) {
      assert.ok(
        exported.includes(name),
        `docs/operations.md names ${name}, which the bridge does not export`,
      );
    }
    for (const family of families) {
      assert.ok(
        exported.some((name) => name.startsWith(family)),
        `${family}* matches an exported metric`,
      );
    }
  });
});
