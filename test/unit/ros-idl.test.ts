import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describeFieldDrift,
  parseAction,
  parseMsg,
  parseRosInterface,
  parseSrv,
  RosIdlError,
  rosidlInterfaceFiles,
} from '../support/ros-idl.js';

// The drift test is only as good as this parser, so it gets its own checks.

const ctx = { file: 'pkg/msg/Test.msg', packageName: 'pkg' };
const fieldsOf = (text: string) => parseMsg(text, ctx).fields.map(({ name, type }) => [name, type]);

describe('ROS interface parser', () => {
  it('reads fields, skipping comments and blank lines', () => {
    const text = [
      '# header comment',
      '',
      'string name  # trailing comment',
      '   ',
      'uint8[] audio',
      '#bool gone',
    ].join('\n');
    assert.deepEqual(fieldsOf(text), [
      ['name', 'string'],
      ['audio', 'uint8[]'],
    ]);
  });

  it('reads bounded, fixed and unbounded arrays and bounded strings', () => {
    const text = 'string[<=1] a\nint32[3] b\nfloat64[] c\nstring<=10 d\nstring<=5[<=2] e\nwstring[<=01] f';
    assert.deepEqual(fieldsOf(text), [
      ['a', 'string[<=1]'],
      ['b', 'int32[3]'],
      ['c', 'float64[]'],
      ['d', 'string<=10'],
      ['e', 'string<=5[<=2]'],
      ['f', 'wstring[<=1]'],
    ]);
  });

  it('drops the own package from nested types and keeps other packages', () => {
    assert.deepEqual(fieldsOf('pkg/Tour a\nTour[] b\ngeometry_msgs/Pose c'), [
      ['a', 'Tour'],
      ['b', 'Tour[]'],
      ['c', 'geometry_msgs/Pose'],
    ]);
  });

  it('reads constants with or without spaces around "=", and defaults', () => {
    const section = parseMsg(
      'uint8 OUTCOME_OK=0\nint8 STATUS_ABORTED   = -6\nstring GREETING="hi # not a comment" # comment\nbool read_only false',
      ctx,
    );
    assert.deepEqual(
      section.constants.map(({ name, type, value }) => [name, type, value]),
      [
        ['OUTCOME_OK', 'uint8', 0],
        ['STATUS_ABORTED', 'int8', -6],
        ['GREETING', 'string', 'hi # not a comment'],
      ],
    );
    assert.deepEqual(section.fields, [{ name: 'read_only', type: 'bool', defaultValue: 'false', line: 4 }]);
  });

  it('splits services at "---" and keeps an empty request', () => {
    const { request, response } = parseSrv('# nothing to ask\n---\nuint8 OK=0\nbool success', ctx);
    assert.deepEqual(request, { fields: [], constants: [] });
    assert.deepEqual(
      response.fields.map((field) => field.name),
      ['success'],
    );
    assert.equal(parseRosInterface('a/B goal\n---\nbool r\n---\nbool f', ctx).length, 3);
  });

  it('splits actions into goal, result and feedback at two "---" lines', () => {
    const actionCtx = { file: 'pkg/action/Test.action', packageName: 'pkg' };
    const { goal, result, feedback } = parseAction(
      'uint8[] audio\n---\nuint8 OUTCOME_OK=0\nbool success\n---\n# a part\nstring text',
      actionCtx,
    );
    assert.deepEqual(
      [goal, result, feedback].map((section) => section.fields.map(({ name, type }) => [name, type])),
      [[['audio', 'uint8[]']], [['success', 'bool']], [['text', 'string']]],
    );
    assert.deepEqual(
      result.constants.map(({ name, value }) => [name, value]),
      [['OUTCOME_OK', 0]],
    );
    assert.deepEqual(goal.constants, []);
    assert.throws(() => parseAction('bool a\n---\nbool b', actionCtx), /exactly two "---" separators/);
    assert.throws(() => parseAction('bool a\n---\n---\n---\nbool b', actionCtx), /exactly two "---"/);
  });

  it('rejects what rosidl rejects, naming file and line', () => {
    const rejects = (text: string, detail: RegExp) => {
      assert.throws(
        () => parseMsg(text, ctx),
        (error: unknown) =>
          error instanceof RosIdlError && detail.test(error.message) && error.message.startsWith(ctx.file),
      );
    };
    rejects('string Name', /:1: invalid field name "Name"/);
    rejects('bool ok\nstring bad__name', /:2: invalid field name/);
    rejects('string trailing_', /invalid field name/);
    rejects('uint8 lower=1', /invalid field name "lower=1"|invalid constant name "lower"/);
    rejects('uint8[] LIST=1', /primitive, non-array/);
    rejects('uint8 X=1.5', /invalid uint8 value/);
    rejects('strng a', /unknown type "strng"/);
    rejects('uint8<=3 a', /only strings take an upper bound/);
    rejects('uint8[<=0] a', /invalid array bound/);
    rejects('bool a\nbool a', /duplicate name "a"/);
    rejects('Tour a {}', /only primitive types take a default/);
    rejects('justonetoken', /expected "<type> <name>"/);
    rejects('bool a\n---\nbool b', /no "---" separator/);
    assert.throws(() => parseSrv('bool a', ctx), /exactly one "---"/);
  });

  it('lists the files of rosidl_generate_interfaces, ignoring comments', () => {
    const cmake = [
      'rosidl_generate_interfaces(${PROJECT_NAME}',
      '  "msg/A.msg"',
      '  # "msg/Commented.msg"',
      '  srv/B.srv',
      '  "action/C.action"',
      '  DEPENDENCIES std_msgs',
      ')',
    ].join('\n');
    assert.deepEqual(rosidlInterfaceFiles(cmake), ['msg/A.msg', 'srv/B.srv', 'action/C.action']);
  });

  it('describes each drifted field, and order changes when nothing else differs', () => {
    const declared = [
      { name: 'a', type: 'string', line: 1 },
      { name: 'b', type: 'uint8', line: 2 },
      { name: 'c', type: 'bool', line: 3 },
    ];
    assert.deepEqual(describeFieldDrift(declared, { a: 'string', b: 'uint8', c: 'bool' }), []);
    assert.deepEqual(describeFieldDrift(declared, { a: 'string', b: 'uint16', d: 'bool' }), [
      'field "b" is uint8 in the file (line 2) but uint16 in the table',
      'field "d" (bool) is in the table but not in the file',
      'field "c" (bool, line 3) is in the file but not in the table',
    ]);
    assert.deepEqual(describeFieldDrift(declared, { b: 'uint8', a: 'string', c: 'bool' }), [
      'field order differs: file has [a, b, c], table has [b, a, c]',
    ]);
  });
});
