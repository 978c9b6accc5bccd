import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { TourOutcome } from '../../src/ros/port/ros-messages.js';
import { TOUR_GUIDE_INTERFACES } from '../support/ros-field-tables.js';
import {
  describeFieldDrift,
  parseAction,
  parseMsg,
  parseSrv,
  rosidlInterfaceFiles,
  type RosConstant,
  type RosSection,
} from '../support/ros-idl.js';

/*
 * ros/tour_guide_interfaces (built by colcon on the robot) and src/ros/port/ros-messages.ts (what this
 * service sends and expects) must describe the same interfaces. tsc ties the field tables in
 * test/support/ros-field-tables.ts to those TS interfaces; this test ties the tables to the
 * .msg/.srv/.action files.
 */

const PACKAGE = 'tour_guide_interfaces';
const packageDir = new URL(`../../ros/${PACKAGE}/`, import.meta.url);
const readPackageFile = (path: string): string => readFileSync(new URL(path, packageDir), 'utf8');

type InterfaceKey = keyof typeof TOUR_GUIDE_INTERFACES;
const TABLE_KEYS = Object.keys(TOUR_GUIDE_INTERFACES) as InterfaceKey[];

const FOLDERS = ['msg', 'srv', 'action'] as const;

const filesIn = (folder: (typeof FOLDERS)[number]): string[] =>
  readdirSync(new URL(`${folder}/`, packageDir))
    .filter((name) => name.endsWith(`.${folder}`))
    .map((name) => `${folder}/${name}`)
    .sort();

/** `srv/Chat` → `srv/Chat.srv`, `action/Converse` → `action/Converse.action`. */
const fileOf = (key: InterfaceKey): string => `${key}.${key.slice(0, key.indexOf('/'))}`;

const assertNoDrift = (
  file: string,
  section: RosSection,
  table: Readonly<Record<string, string>>,
  what: string,
) => {
  const problems = describeFieldDrift(section.fields, table);
  if (problems.length > 0) {
    assert.fail(
      `ros/${PACKAGE}/${file} (${what}) drifted from its table in test/support/ros-field-tables.ts:\n  - ${problems.join('\n  - ')}\n` +
        'Change the .msg/.srv file, the TS interface and its field table together.',
    );
  }
  const defaults = section.fields.filter((field) => field.defaultValue !== undefined);
  assert.deepEqual(
    defaults.map((field) => `${field.name} (line ${field.line})`),
    [],
    `ros/${PACKAGE}/${file} (${what}): default values are not mirrored in TS; remove them or mirror them`,
  );
};

const describeConstants = (constants: readonly RosConstant[]): string[] =>
  constants.map((constant) => `${constant.type} ${constant.name}=${String(constant.value)}`);

/** The OUTCOME_* constants a section must declare, derived from a TS outcome table (TourOutcome by default). */
const expectedOutcomeConstants = (outcomes: Readonly<Record<string, number>> = TourOutcome): string[] =>
  Object.entries(outcomes).map(([name, value]) => `uint8 OUTCOME_${name}=${value}`);

describe(`ros/${PACKAGE} matches src/ros/port/ros-messages.ts`, () => {
  it('has one field table per .msg/.srv/.action file and no table without a file', () => {
    const files = FOLDERS.flatMap(filesIn).sort();
    assert.deepEqual(files, TABLE_KEYS.map(fileOf).sort());
  });

  it('generates every interface file in CMakeLists.txt', () => {
    const listed = rosidlInterfaceFiles(readPackageFile('CMakeLists.txt')).sort();
    assert.deepEqual(listed, TABLE_KEYS.map(fileOf).sort());
  });

  it('names the package tour_guide_interfaces in package.xml and CMakeLists.txt', () => {
    assert.match(readPackageFile('package.xml'), new RegExp(`<name>${PACKAGE}</name>`));
    assert.match(readPackageFile('CMakeLists.txt'), new RegExp(`project\\(${PACKAGE}\\)`));
  });

  for (const key of TABLE_KEYS) {
    const file = fileOf(key);
    const ctx = { file: `ros/${PACKAGE}/${file}`, packageName: PACKAGE };
    const entry = TOUR_GUIDE_INTERFACES[key];

    if ('goal' in entry) {
      it(`${file}: goal, result and feedback fields match`, () => {
        const { goal, result, feedback } = parseAction(readPackageFile(file), ctx);
        assertNoDrift(file, goal, entry.goal, 'goal');
        assertNoDrift(file, result, entry.result, 'result');
        assertNoDrift(file, feedback, entry.feedback, 'feedback');
      });

      it(`${file}: the result's OUTCOME_* constants equal its table, goal and feedback have none`, () => {
        const { goal, result, feedback } = parseAction(readPackageFile(file), ctx);
        assert.deepEqual(describeConstants(goal.constants), [], `${file}: the goal declares constants`);
        assert.deepEqual(
          describeConstants(feedback.constants),
          [],
          `${file}: the feedback declares constants`,
        );
        assert.deepEqual(
          describeConstants(result.constants),
          expectedOutcomeConstants(entry.resultOutcomeConstants),
          `${file}: result constants differ from ConverseOutcome in src/ros/port/ros-messages.ts`,
        );
      });
      continue;
    }

    if ('fields' in entry) {
      it(`${file}: fields match`, () => {
        const section = parseMsg(readPackageFile(file), ctx);
        assertNoDrift(file, section, entry.fields, 'message');
      });

      const mirrored = 'constants' in entry ? entry.constants : undefined;
      it(`${file}: constants ${mirrored === undefined ? 'are absent' : `equal their TS table (${mirrored.prefix}*)`}`, () => {
        const section = parseMsg(readPackageFile(file), ctx);
        assert.deepEqual(
          describeConstants(section.constants),
          mirrored === undefined
            ? []
            : Object.entries(mirrored.values).map(
                ([name, value]) => `${mirrored.type} ${mirrored.prefix}${name}=${value}`,
              ),
          mirrored === undefined
            ? `${file}: constants are not mirrored in TS`
            : `${file}: constants differ from their table in src/ros/port/ros-messages.ts`,
        );
      });
      continue;
    }

    it(`${file}: request and response fields match`, () => {
      const { request, response } = parseSrv(readPackageFile(file), ctx);
      assertNoDrift(file, request, entry.request, 'request');
      assertNoDrift(file, response, entry.response, 'response');
    });

    it(`${file}: constants ${entry.outcomeConstants ? 'equal TourOutcome' : 'are absent'}`, () => {
      const { request, response } = parseSrv(readPackageFile(file), ctx);
      assert.deepEqual(describeConstants(request.constants), [], `${file}: the request declares constants`);
      assert.deepEqual(
        describeConstants(response.constants),
        entry.outcomeConstants ? expectedOutcomeConstants() : [],
        `${file}: response constants differ from TourOutcome in src/ros/port/ros-messages.ts`,
      );
    });
  }
});
