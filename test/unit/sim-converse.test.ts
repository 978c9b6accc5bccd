import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { echoChat, echoChatParts, echoChatWhole } from '../../src/robot/echo-chat.js';
import { createSimBackend } from '../../src/robot/sim/sim-backend.js';
import { transcriptText } from '../../src/robot/speech/recognition-cost.js';
import { ConverseOutcome, type ConverseFeedbackMsg } from '../../src/ros/port/ros-messages.js';
import { RosServiceUnavailableError, type RosConverseHandler } from '../../src/ros/port/ros-port.js';
import { callOnce } from '../support/port-calls.js';

const concat = (parts: readonly { audio: Uint8Array }[]): Uint8Array =>
  Uint8Array.from(Buffer.concat(parts.map((part) => part.audio)));

const bytes = (length: number): Uint8Array => Uint8Array.from({ length }, (_, index) => (index * 31) & 0xff);

/** A handler that writes down what it hears, with the scheduler's time. */
const recorder = (now: () => number) => {
  const heard: string[] = [];
  const parts: ConverseFeedbackMsg[] = [];
  const handler: RosConverseHandler = {
    part: (feedback) => {
      parts.push(feedback);
      heard.push(`part ${parts.length} @${now()}`);
    },
    finished: (result) => heard.push(`result ${result.outcome} ${String(result.success)} @${now()}`),
    failed: (error) => heard.push(`failed ${error.message} @${now()}`),
  };
  return { heard, parts, handler };
};

describe('the echo answer in parts', () => {
  it('cuts the audio in N consecutive slices whose concatenation is exactly the utterance', () => {
    for (const length of [0, 1, 2, 3, 7, 100, 32 * 1024 + 1]) {
      for (const parts of [1, 2, 3, 7, 50]) {
        const audio = bytes(length);
        const split = echoChatParts({ audio }, parts);
        assert.equal(split.length, parts);
        assert.deepEqual(concat(split), audio, `${length} bytes in ${parts} parts`);
        const sizes = split.map((part) => part.audio.byteLength);
        assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `even slices: ${sizes.join(',')}`);
      }
    }
  });

  it('says one sentence per part; one part is exactly the /chat echo; the whole joins the texts', () => {
    const audio = bytes(10);
    assert.deepEqual(
      echoChatParts({ audio }, 3).map((part) => part.text),
      ['I heard you. This is what you sent me.', 'This is part 2 of 3.', 'This is part 3 of 3.'],
    );
    assert.deepEqual(echoChatParts({ audio }, 1), [echoChat({ audio })]);
    assert.deepEqual(echoChatWhole({ audio }, 1), echoChat({ audio }));
    assert.deepEqual(echoChatWhole({ audio }, 2), {
      emotion: 'happy',
      text: 'I heard you. This is what you sent me. This is part 2 of 2.',
      audio,
    });
    assert.throws(() => echoChatParts({ audio }, 0), RangeError);
    assert.throws(() => echoChatParts({ audio }, 51), RangeError);
  });
});

describe('the simulated Converse action and /chat with a modelled pipeline', () => {
  it('action: part k at latency + k × part time, the result with the last part, the slices whole', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
    const sim = createSimBackend({ chatParts: 3, partMs: 400, latencyMs: 10, scheduler });
    const { heard, parts, handler } = recorder(() => scheduler.now());
    const audio = bytes(32 * 1024);
    sim.converse({ utterance_id: '', streamed: false, audio }, handler);
    assert.deepEqual(heard, [], 'nothing before the scheduler runs');
    scheduler.flush();
    assert.deepEqual(heard, [
      'part 1 @410',
      'part 2 @810',
      'part 3 @1210',
      `result ${ConverseOutcome.OK} true @1210`,
    ]);
    assert.deepEqual(concat(parts), audio);
  });

  it('service: one whole answer after latency + parts × part time', async () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
    const sim = createSimBackend({ chatParts: 3, partMs: 400, scheduler });
    const audio = bytes(100);
    const answer = callOnce(sim, 'chat', { audio });
    let at = -1;
    void answer.then(() => (at = scheduler.now()));
    scheduler.flush();
    const response = await answer;
    assert.equal(at, 1200);
    assert.equal(
      response.text,
      'I heard you. This is what you sent me. This is part 2 of 3. This is part 3 of 3.',
    );
    assert.deepEqual(response.audio, audio);
  });

  it('action: cancel stops every part not yet sent, and the result', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
    const sim = createSimBackend({ chatParts: 3, partMs: 100, scheduler });
    const { heard, handler } = recorder(() => scheduler.now());
    const ticket = sim.converse({ utterance_id: '', streamed: false, audio: bytes(9) }, handler);
    scheduler.schedule(() => {
      ticket.cancel();
    }, 150);
    scheduler.flush();
    assert.deepEqual(heard, ['part 1 @100']);
  });

  it('action: a handler that cancels on a part hears nothing more, even when the next parts are due at once', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
    const sim = createSimBackend({ chatParts: 3, partMs: 0, scheduler });
    const heard: string[] = [];
    const ticket = sim.converse(
      { utterance_id: '', streamed: false, audio: bytes(9) },
      {
        part: () => {
          heard.push('part');
          ticket.cancel();
        },
        finished: () => heard.push('result'),
        failed: () => heard.push('failed'),
      },
    );
    scheduler.flush();
    assert.deepEqual(heard, ['part']);
  });

  it('action without any delay: all parts and the result on the next microtask, not during the call', async () => {
    const sim = createSimBackend({ chatParts: 2 });
    const { heard, parts, handler } = recorder(() => 0);
    sim.converse({ utterance_id: '', streamed: false, audio: bytes(5) }, handler);
    assert.deepEqual(heard, []);
    await Promise.resolve();
    await Promise.resolve();
    assert.deepEqual(heard, ['part 1 @0', 'part 2 @0', `result ${ConverseOutcome.OK} true @0`]);
    assert.deepEqual(concat(parts), bytes(5));
  });

  it('keeps its fault injection for the action: unavailable fails at once, unresponsive never answers', () => {
    const scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);
    const sim = createSimBackend({ chatParts: 2, partMs: 10, scheduler });
    const { heard, handler } = recorder(() => scheduler.now());
    sim.faults.setUnavailable('converse', true);
    sim.converse({ utterance_id: '', streamed: false, audio: bytes(2) }, handler);
    assert.deepEqual(heard, [`failed ${new RosServiceUnavailableError('converse').message} @0`]);
    sim.faults.setUnavailable('converse', false);
    sim.faults.setUnresponsive('converse', true);
    sim.converse({ utterance_id: '', streamed: false, audio: bytes(2) }, handler);
    scheduler.flush();
    assert.equal(heard.length, 1, 'an unresponsive action server sends nothing');
    sim.faults.setUnresponsive('converse', false);
    sim.converse({ utterance_id: '', streamed: false, audio: bytes(2) }, handler);
    scheduler.flush();
    assert.deepEqual(heard.slice(1), ['part 1 @10', 'part 2 @20', `result ${ConverseOutcome.OK} true @20`]);
  });
});

describe('the echo answer’s words', () => {
  /** A 16 kHz 16-bit mono WAV of `seconds` of silence. */
  const wav = (seconds: number): Uint8Array => {
    const data = Math.round(seconds * 16_000) * 2;
    const file = Buffer.alloc(44 + data);
    file.write('RIFF', 0, 'ascii');
    file.writeUInt32LE(36 + data, 4);
    file.write('WAVEfmt ', 8, 'ascii');
    file.writeUInt32LE(16, 16);
    file.writeUInt16LE(1, 20);
    file.writeUInt16LE(1, 22);
    file.writeUInt32LE(16_000, 24);
    file.writeUInt32LE(32_000, 28);
    file.writeUInt16LE(2, 32);
    file.writeUInt16LE(16, 34);
    file.write('data', 36, 'ascii');
    file.writeUInt32LE(data, 40);
    return new Uint8Array(file);
  };

  it('says how long the visitor spoke, as a person would, and never a byte count', () => {
    assert.equal(echoChat({ audio: wav(2.2) }).text, 'You spoke for about 2 seconds. This is what I heard.');
    assert.equal(echoChat({ audio: wav(1.2) }).text, 'You spoke for about 1 second. This is what I heard.');
    assert.equal(
      echoChat({ audio: wav(0.4) }).text,
      'You spoke for less than a second. This is what I heard.',
    );
    assert.equal(echoChat({ audio: new Uint8Array() }).text, 'I did not hear anything. Please try again.');
    assert.equal(echoChat({ audio: bytes(69_610) }).text, 'I heard you. This is what you sent me.');
    // The kiosk shows the stand-in's transcript ("[2.5 s of speech]") beside this: the two agree, for every
    // length in hundredths from 0.5 s to 4 s (2.46 s is "2.5 s" there and "about 3 seconds" here).
    for (let hundredths = 50; hundredths <= 400; hundredths += 1) {
      const audio = wav(hundredths / 100);
      const shown = Number(
        /^\[([\d.]+) s of speech\]$/.exec(transcriptText((audio.byteLength - 44) / 32_000))?.[1],
      );
      const whole = Math.round(shown);
      const said = shown < 1 ? 'less than a second' : `about ${whole} second${whole === 1 ? '' : 's'}`;
      assert.equal(echoChat({ audio }).text, `You spoke for ${said}. This is what I heard.`, `${shown} s`);
    }
    // A header that claims more data than the file holds counts what is there.
    assert.equal(
      echoChat({ audio: wav(3).subarray(0, 44 + 32_000) }).text.startsWith('You spoke for about 1 second'),
      true,
    );
  });
});
