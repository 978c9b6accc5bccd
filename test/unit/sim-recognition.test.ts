import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConverseOutcome } from '../../src/ros/port/ros-messages.js';
import { createSimBackend } from '../../src/robot/sim/sim-backend.js';
import { wavOfPcmParts } from '../../src/protocol/ws/index.js';
import { WAV_HEADER_BYTES } from '../../src/protocol/ws/index.js';
import { transcriptText } from '../../src/robot/speech/recognition-cost.js';
import { end, goalRecorder, part, pcm, simOnVirtualTime } from '../support/sim-speech.js';

const concat = (parts: readonly { audio: Uint8Array }[]): Uint8Array =>
  Uint8Array.from(Buffer.concat(parts.map((each) => each.audio)));

describe('the simulation’s recogniser cost', () => {
  it('refuses an rt out of the shared model’s range where the simulation is made', () => {
    assert.throws(() => createSimBackend({ recognitionRt: 11 }), /from 0 to 10, got 11/);
  });
});

describe('the simulation’s streaming recogniser (virtual time)', () => {
  it('recognises each part as it arrives, a partial transcript after each, the final after the END', () => {
    const { sim, transcripts, stream, scheduler } = simOnVirtualTime({ recognitionRt: 0.3 });
    // Three 100 ms parts at 0, 100 and 200 ms, the END with the last: 30 ms of work each.
    stream('u1', 0, 3, 100);
    scheduler.flush();
    assert.deepEqual(transcripts, [
      'u1 partial [0.1 s of speech] @30',
      'u1 partial [0.2 s of speech] @130',
      'u1 partial [0.3 s of speech] @230',
      'u1 final [0.3 s of speech] @230',
    ]);
    assert.equal(sim.recognitionStats().partsRecognised, 3);
    assert.equal(sim.recognitionStats().finals, 1);
  });

  it('works on parts one after another: a part that arrives while the previous is worked on waits for it', () => {
    const { sim, transcripts, at, scheduler } = simOnVirtualTime({ recognitionRt: 0.3 });
    // Three 1 s parts handed over at once (900 ms of work), then a 100 ms one long after.
    at(0, () => {
      for (let sequence = 0; sequence < 3; sequence += 1) {
        sim.publishUtteranceAudio(part('u', sequence, pcm(1000, sequence)));
      }
    });
    at(2000, () => {
      sim.publishUtteranceAudio(part('u', 3, pcm(100)));
      sim.publishUtteranceAudio(end('u', 4));
    });
    scheduler.flush();
    assert.deepEqual(transcripts, [
      `u partial ${transcriptText(1)} @300`,
      `u partial ${transcriptText(2)} @600`,
      `u partial ${transcriptText(3)} @900`,
      `u partial ${transcriptText(3.1)} @2030`,
      `u final ${transcriptText(3.1)} @2030`,
    ]);
  });

  it('answers a streamed goal once the final is out: the echo of the utterance as a WAV, on the usual schedule', () => {
    const { sim, stream, at, scheduler } = simOnVirtualTime({
      recognitionRt: 0.3,
      chatParts: 2,
      partMs: 100,
      latencyMs: 5,
    });
    const goal = goalRecorder(() => scheduler.now());
    stream('u1', 0, 3, 100);
    // The bridge sends the goal right after the END (at 200); the last part's work ends at 230.
    at(200, () =>
      sim.converse({ utterance_id: 'u1', streamed: true, audio: new Uint8Array() }, goal.handler),
    );
    scheduler.flush();
    assert.deepEqual(goal.heard, ['part 1 @335', 'part 2 @435', `result ${ConverseOutcome.OK} true @435`]);
    const answered = concat(goal.parts);
    assert.deepEqual(answered, wavOfPcmParts([pcm(100, 0), pcm(100, 1), pcm(100, 2)]));
    assert.equal(goal.parts[0]?.text, 'You spoke for less than a second. This is what I heard.');
    assert.equal(sim.recognitionStats().utterances, 0, 'the answered utterance is no longer held');
    assert.equal(sim.recognitionStats().bytesHeld, 0);
  });

  it('keeps time to first sound flat with a streamed utterance’s length; a whole one pays rt × its length', () => {
    const firstSound = (seconds: number, streamed: boolean): number => {
      const { sim, stream, at, scheduler } = simOnVirtualTime({
        recognitionRt: 0.3,
        chatParts: 3,
        partMs: 400,
      });
      const goal = goalRecorder(() => scheduler.now());
      const parts = seconds * 10;
      const endOfSpeech = (parts - 1) * 100;
      if (streamed) {
        stream('u', 0, parts, 100);
        at(endOfSpeech, () =>
          sim.converse({ utterance_id: 'u', streamed: true, audio: new Uint8Array() }, goal.handler),
        );
      } else {
        const wav = wavOfPcmParts([pcm(seconds * 1000)]);
        at(endOfSpeech, () => sim.converse({ utterance_id: 'u', streamed: false, audio: wav }, goal.handler));
      }
      scheduler.flush();
      const first = /^part 1 @(\d+)$/.exec(goal.heard[0] ?? '');
      assert.ok(first, goal.heard.join(', '));
      return Number(first[1]) - endOfSpeech;
    };
    // Streamed: the last 100 ms part's 30 ms, then the first part of the answer 400 ms on.
    assert.deepEqual(
      [1, 5, 15].map((seconds) => firstSound(seconds, true)),
      [430, 430, 430],
    );
    // Whole: 0.3 × the whole utterance, then the same 400 ms.
    assert.deepEqual(
      [1, 5, 15].map((seconds) => firstSound(seconds, false)),
      [700, 1900, 4900],
    );
  });

  it('waits for a goal that comes before the utterance’s first part, and answers it after the final', () => {
    const { sim, stream, at, scheduler } = simOnVirtualTime({ recognitionRt: 0.5, chatParts: 1 });
    const goal = goalRecorder(() => scheduler.now());
    at(0, () =>
      sim.converse({ utterance_id: 'late', streamed: true, audio: new Uint8Array() }, goal.handler),
    );
    at(10, () => {
      assert.equal(sim.recognitionStats().waitingGoals, 1);
    });
    stream('late', 1000, 2, 200);
    scheduler.flush();
    // Parts at 1000 and 1200, 100 ms of work each: the final at 1300, the answer then.
    assert.deepEqual(goal.heard, ['part 1 @1300', `result ${ConverseOutcome.OK} true @1300`]);
    assert.equal(sim.recognitionStats().waitingGoals, 0);
  });

  it('pays rt × the whole utterance after it, before the usual schedule: a Converse goal with audio and /chat', () => {
    const { sim, at, scheduler } = simOnVirtualTime({
      recognitionRt: 0.3,
      chatParts: 2,
      partMs: 100,
      latencyMs: 10,
    });
    const goal = goalRecorder(() => scheduler.now());
    const twoSeconds = wavOfPcmParts([pcm(2000)]);
    at(50, () => sim.converse({ utterance_id: '', streamed: false, audio: twoSeconds }, goal.handler));
    let chatAt = -1;
    let chatText = '';
    sim.call(
      'chat',
      { audio: pcm(1000) },
      {
        answered: (response) => {
          chatAt = scheduler.now();
          chatText = response.text;
        },
        failed: (error) => assert.fail(error),
      },
    );
    scheduler.flush();
    // 50 + 600 of recognition + 10 of latency + k × 100.
    assert.deepEqual(goal.heard, ['part 1 @760', 'part 2 @860', `result ${ConverseOutcome.OK} true @860`]);
    assert.deepEqual(concat(goal.parts), twoSeconds);
    // Raw PCM of 1 s: 300 of recognition + 10 + 2 × 100.
    assert.equal(chatAt, 510);
    assert.equal(chatText, 'I heard you. This is what you sent me. This is part 2 of 2.');
  });

  it('keeps today’s timing at rt 0: a whole goal on latency + k × part time, transcripts at once', () => {
    const { sim, stream, at, transcripts, scheduler } = simOnVirtualTime({ chatParts: 2, partMs: 100 });
    const goal = goalRecorder(() => scheduler.now());
    at(0, () =>
      sim.converse({ utterance_id: '', streamed: false, audio: wavOfPcmParts([pcm(5000)]) }, goal.handler),
    );
    stream('u', 0, 2, 100);
    scheduler.flush();
    assert.deepEqual(goal.heard, ['part 1 @100', 'part 2 @200', `result ${ConverseOutcome.OK} true @200`]);
    assert.deepEqual(transcripts, [
      `u partial ${transcriptText(0.1)} @0`,
      `u partial ${transcriptText(0.2)} @100`,
      `u final ${transcriptText(0.2)} @100`,
    ]);
  });

  it('without a test scheduler and at rt 0, publishes transcripts on a later tick, never inside the publish', async () => {
    const sim = createSimBackend({ chatParts: 1 });
    const heard: string[] = [];
    sim.transcripts$.subscribe((transcript) => heard.push(`${transcript.text} ${String(transcript.final)}`));
    sim.publishUtteranceAudio(part('u', 0, pcm(200)));
    sim.publishUtteranceAudio(end('u', 1));
    assert.deepEqual(heard, []);
    const result = new Promise<string>((resolve) => {
      sim.converse(
        { utterance_id: 'u', streamed: true, audio: new Uint8Array() },
        {
          part: () => undefined,
          finished: (done) => {
            resolve(done.message);
          },
          failed: (error) => {
            resolve(error.message);
          },
        },
      );
    });
    assert.equal(await result, '');
    assert.deepEqual(heard, [`${transcriptText(0.2)} false`, `${transcriptText(0.2)} true`]);
    await sim.close();
  });

  it('copies the parts it holds: a publisher that reuses its buffer changes nothing already sent', () => {
    const { sim, at, scheduler } = simOnVirtualTime({ chatParts: 1 });
    const goal = goalRecorder(() => scheduler.now());
    const buffer = pcm(100, 9);
    const original = buffer.slice();
    at(0, () => {
      sim.publishUtteranceAudio(part('u', 0, buffer));
      buffer.fill(0);
      sim.publishUtteranceAudio(end('u', 1));
      sim.converse({ utterance_id: 'u', streamed: true, audio: new Uint8Array() }, goal.handler);
    });
    scheduler.flush();
    assert.deepEqual(concat(goal.parts).subarray(WAV_HEADER_BYTES), original);
  });
});
