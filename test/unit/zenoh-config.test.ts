import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Json5SyntaxError, parseJson5Value } from '../../src/ros/zenoh/json5-value.js';
import {
  describeRouterCheckPolicy,
  probeTargetOf,
  routerCheckPolicy,
  splitConfigOverride,
  zenohSessionPlan,
} from '../../src/ros/zenoh/zenoh-config.js';

const SPEC_OVERRIDE = 'mode="client";connect/endpoints=["tcp/host.docker.internal:7447"]';

describe('ZENOH_CONFIG_OVERRIDE, split as rmw_zenoh splits it', () => {
  it('splits pairs at ";" and each pair at its first "="', () => {
    assert.deepEqual(splitConfigOverride(SPEC_OVERRIDE), [
      { key: 'mode', value: '"client"' },
      { key: 'connect/endpoints', value: '["tcp/host.docker.internal:7447"]' },
    ]);
    assert.deepEqual(splitConfigOverride('a/b="x=y"'), [{ key: 'a/b', value: '"x=y"' }]);
  });

  it('skips pairs without "=" or without a value, and keeps keys untrimmed', () => {
    assert.deepEqual(splitConfigOverride(';;novalue;empty=;mode ="peer";'), [
      { key: 'mode ', value: '"peer"' },
    ]);
    assert.deepEqual(splitConfigOverride(''), []);
  });

  it('ends a value at a line break, as std::getline does', () => {
    assert.deepEqual(splitConfigOverride('mode="client"\nignored'), [{ key: 'mode', value: '"client"' }]);
  });
});

describe('JSON5 values', () => {
  it('reads strings in both quotes, lists, objects with bare keys, trailing commas and comments', () => {
    assert.equal(parseJson5Value('"client"'), 'client');
    assert.equal(parseJson5Value("'peer'"), 'peer');
    assert.deepEqual(parseJson5Value('["tcp/a:1", \'tcp/b:2\',]'), ['tcp/a:1', 'tcp/b:2']);
    assert.deepEqual(parseJson5Value('{ client: ["tcp/r:7447"], /* c */ "peer": [] // end\n}'), {
      client: ['tcp/r:7447'],
      peer: [],
    });
    assert.deepEqual(parseJson5Value('[true, null, -0x10, .5, +1e2]'), [true, null, -16, 0.5, 100]);
    assert.equal(parseJson5Value('"a\\u0041\\n\\"\\\\"'), 'aA\n"\\');
  });

  it('keeps a "__proto__" key as data', () => {
    const value = parseJson5Value('{"__proto__": ["x"]}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(value), ['__proto__']);
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
  });

  it('rejects malformed input naming the position, and bounds size and depth', () => {
    for (const bad of ['["a"', '"unterminated', '[1 2]', '{a 1}', 'client', '"a"x', '/* open']) {
      assert.throws(() => parseJson5Value(bad), Json5SyntaxError, bad);
    }
    assert.throws(() => parseJson5Value('["tcp/a:1"'), /expected "," or "]" at character 11, found the end/);
    assert.throws(() => parseJson5Value(`"${'x'.repeat(20_000)}"`), /longer than 16384 characters/);
    assert.throws(() => parseJson5Value(`${'['.repeat(20)}${']'.repeat(20)}`), /nested deeper than 16/);
  });
});

describe('the Zenoh session plan', () => {
  it("is rmw_zenoh's default without any variable: peer mode, tcp/localhost:7447", () => {
    assert.deepEqual(zenohSessionPlan({}), {
      kind: 'known',
      mode: 'peer',
      endpoints: ['tcp/localhost:7447'],
      source: "rmw_zenoh's default session config",
      ignored: [],
    });
  });

  it("reads the spec's container override: client mode to host.docker.internal:7447", () => {
    const plan = zenohSessionPlan({ ZENOH_CONFIG_OVERRIDE: SPEC_OVERRIDE });
    assert.equal(plan.kind, 'known');
    assert.equal(plan.mode, 'client');
    assert.deepEqual(plan.endpoints, ['tcp/host.docker.internal:7447']);
    assert.equal(plan.source, 'ZENOH_CONFIG_OVERRIDE');
  });

  it('picks the list of the mode from a per-mode endpoint setting, and applies pairs in order', () => {
    const plan = zenohSessionPlan({
      ZENOH_CONFIG_OVERRIDE:
        'connect/endpoints=["tcp/first:1"];connect/endpoints={client:["tcp/c:7447"],peer:["tcp/p:7447"]};mode="client"',
    });
    assert.equal(plan.kind === 'known' && plan.endpoints.join(), 'tcp/c:7447');
    const whole = zenohSessionPlan({ ZENOH_CONFIG_OVERRIDE: 'connect={endpoints:["tcp/w:9"]}' });
    assert.equal(whole.kind === 'known' && whole.endpoints.join(), 'tcp/w:9');
  });

  it('reports pairs it cannot read and keeps the earlier value, as rmw_zenoh ignores invalid pairs', () => {
    const plan = zenohSessionPlan({ ZENOH_CONFIG_OVERRIDE: 'mode="satellite";connect/endpoints=[1]' });
    assert.equal(plan.kind, 'known');
    assert.equal(plan.mode, 'peer');
    assert.deepEqual(plan.endpoints, ['tcp/localhost:7447']);
    assert.equal(plan.ignored.length, 2);
    assert.match(plan.ignored[0] ?? '', /^mode: must be one of peer, client, router/);
  });

  it('is unknown when the endpoints come from a config file the bridge does not read', () => {
    const plan = zenohSessionPlan({ ZENOH_SESSION_CONFIG_URI: '/etc/zenoh/session.json5' });
    assert.equal(plan.kind, 'unknown');
    assert.match(plan.reason, /ZENOH_SESSION_CONFIG_URI \(\/etc\/zenoh\/session\.json5\)/);
    const overridden = zenohSessionPlan({
      ZENOH_SESSION_CONFIG_URI: '/etc/zenoh/session.json5',
      ZENOH_CONFIG_OVERRIDE: 'connect/endpoints=["tcp/r:7447"]',
    });
    assert.equal(overridden.kind === 'known' && overridden.endpoints.join(), 'tcp/r:7447');
  });

  it('bounds what it reads', () => {
    const long = zenohSessionPlan({ ZENOH_CONFIG_OVERRIDE: `mode="client";${'x'.repeat(17_000)}` });
    assert.equal(long.kind, 'unknown');
    const many = JSON.stringify(Array.from({ length: 33 }, (_, index) => `tcp/h${index}:7447`));
    assert.equal(zenohSessionPlan({ ZENOH_CONFIG_OVERRIDE: `connect/endpoints=${many}` }).kind, 'unknown');
  });
});

describe('Zenoh locators as probe targets', () => {
  it('reads tcp, tls and ws host:port (IPv6 in brackets), dropping ?metadata and #config', () => {
    assert.deepEqual(probeTargetOf('tcp/host.docker.internal:7447'), {
      kind: 'tcp',
      host: 'host.docker.internal',
      port: 7447,
    });
    assert.deepEqual(probeTargetOf('tls/[::1]:7447?prio=1-7#iface=lo'), {
      kind: 'tcp',
      host: '::1',
      port: 7447,
    });
    assert.deepEqual(probeTargetOf('ws/10.0.0.1:80'), { kind: 'tcp', host: '10.0.0.1', port: 80 });
    assert.deepEqual(probeTargetOf('unixsock-stream//tmp/zenoh.sock'), {
      kind: 'unix',
      path: '/tmp/zenoh.sock',
    });
  });

  it('refuses what it cannot probe, saying why', () => {
    for (const locator of [
      'udp/h:7447',
      'quic/h:7447',
      'tcp/h',
      'tcp/h:0',
      'tcp/h:70000',
      'h:7447',
      'tcp/:1',
    ]) {
      assert.ok('unsupported' in probeTargetOf(locator), locator);
    }
  });
});

describe('ZENOH_ROUTER_CHECK_ATTEMPTS', () => {
  it('0 checks forever, negative skips, positive counts, unset is one check (current rmw_zenoh)', () => {
    assert.deepEqual(routerCheckPolicy('0'), {
      kind: 'attempts',
      maxAttempts: Number.POSITIVE_INFINITY,
      unlimited: true,
    });
    assert.deepEqual(routerCheckPolicy('-1'), { kind: 'skip' });
    assert.deepEqual(routerCheckPolicy('5'), { kind: 'attempts', maxAttempts: 5, unlimited: false });
    assert.deepEqual(routerCheckPolicy(undefined), { kind: 'attempts', maxAttempts: 1, unlimited: false });
    assert.deepEqual(routerCheckPolicy(''), { kind: 'attempts', maxAttempts: 1, unlimited: false });
  });

  it('reads the value as strtoll does: leading blanks, sign, digits; no digits means 0', () => {
    assert.deepEqual(routerCheckPolicy('  7x'), { kind: 'attempts', maxAttempts: 7, unlimited: false });
    assert.deepEqual(routerCheckPolicy('abc'), { kind: 'attempts', maxAttempts: Infinity, unlimited: true });
    assert.deepEqual(routerCheckPolicy('-0'), { kind: 'attempts', maxAttempts: Infinity, unlimited: true });
    assert.deepEqual(routerCheckPolicy('99999999999999999999'), {
      kind: 'attempts',
      maxAttempts: Infinity,
      unlimited: true,
    });
  });

  it('describes each policy in words naming the variable', () => {
    assert.equal(
      describeRouterCheckPolicy('0', routerCheckPolicy('0')),
      'ZENOH_ROUTER_CHECK_ATTEMPTS=0: checking every second until the router answers',
    );
    assert.match(describeRouterCheckPolicy('3', routerCheckPolicy('3')), /up to 3 checks one second apart/);
    assert.match(describeRouterCheckPolicy(undefined, routerCheckPolicy(undefined)), /unset: one check/);
    assert.match(describeRouterCheckPolicy('-1', routerCheckPolicy('-1')), /no router check/);
  });
});
